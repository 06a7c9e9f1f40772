import type { EventKind } from '@beckon/contracts/items/event-kinds';
import type { ItemView } from '@beckon/contracts/items/item.contract';
import type { Queryable } from '@beckon/db';
import type { answerSources } from '@beckon/db/schema';
import type { Actor, Identity } from '../../../auth/identity';
import { actorOf, POLICY, SYSTEM } from '../../../auth/identity';
import { freshVerification, sessionVerification, type Verification } from '../../../auth/verification';
import { OrgFacts } from '../../../caches/org-facts';
import type { Deps } from '../../../deps';
import { AppError } from '../../../errors';
import { itemPageUrl } from '../../../mail/item-mail';
import { onBehalfOf } from '../../assignment/assignees';
import { authMethod, issueReceipt } from '../../receipts/receipts';
import { connectedChatApps } from '../changes/chat-follow-ups';
import { escalationSchedule } from '../changes/escalate-item';
import { recordChange } from '../changes/record-change';
import { repeatSchedule } from '../changes/repeat-item';
import { validateAnswer } from '../forms/form-answer';
import { expirySchedule, findItem, RETURNING } from '../rows/item-queries';
import { type ItemRow, itemView } from '../rows/item-view';
import { approverCheck } from '../state/approvers';
import { type ItemAction, nextStatus } from '../state/item-state';
import { type AnswerStep, answerStep } from '../state/policies';

type AnswerSource = (typeof answerSources)[number];

/** The actions a delegate takes on behalf of the people away who named them. */
const ON_BEHALF: ReadonlySet<ItemAction> = new Set(['answer', 'dismiss', 'ack']);

/** The statuses a decision leaves an item in: each has a receipt. */
const DECISIONS: ReadonlySet<ItemRow['status']> = new Set(['answered', 'dismissed']);

const EVENTS: Record<ItemAction, EventKind> = {
  answer: 'item.answered',
  dismiss: 'item.dismissed',
  ack: 'item.acked',
  archive: 'item.archived',
  unarchive: 'item.unarchived',
  restore: 'item.restored',
  withdraw: 'item.withdrawn',
  expire: 'item.expired',
  snooze: 'item.updated',
  unsnooze: 'item.updated',
  pin: 'item.updated',
  unpin: 'item.updated',
};

export type ActionInput = {
  action: ItemAction;
  values?: unknown;
  until?: Date;
  /** The channel a person acted from when not the API or the dashboard (items.answered_via). */
  via?: AnswerSource;
  /** The item's timeout policy acts (answer, dismiss at the deadline): `answered_by: {type: "policy"}`. */
  byPolicy?: boolean;
};

/** An answer checked against the form and the approvals rule (policies.ts, approvers.ts). */
type Answer = {
  action: 'answer';
  values: Record<string, unknown>;
  step: AnswerStep;
  via?: AnswerSource;
  /** What its audit entry adds about who answered (an agent let in by `allow_agents`). */
  approver?: Record<string, unknown>;
};

/** The column changes of an allowed move (the status machine has already said yes). */
function changesFor(
  sql: Queryable,
  row: ItemRow,
  input: ActionInput | Answer,
  to: ItemRow['status'],
  actor: Actor,
) {
  const decidedBy = sql`answered_at = now(), answered_by_type = ${actor.type}, answered_by_id = ${actor.id}`;
  if ('step' in input) {
    const responses = sql`responses = responses || ${sql.json([input.step.response] as never)}`;
    if (!input.step.closes) return responses;
    return sql`${responses}, status = ${to}, response = ${sql.json(input.values as never)}, ${decidedBy},
               answered_via = ${input.via ?? null}`;
  }
  switch (input.action) {
    case 'dismiss':
      // The policy's dismissal says who decided, as an answer does.
      return input.byPolicy ? sql`status = ${to}, ${decidedBy}` : sql`status = ${to}`;
    case 'restore':
      // Back to open: nobody has decided (a policy's dismissal is undone).
      return to === 'open'
        ? sql`status = ${to}, answered_at = null, answered_by_type = null, answered_by_id = null, receipt = null`
        : sql`status = ${to}`;
    case 'ack':
      return sql`acked_at = coalesce(acked_at, now()), acked_by_type = ${actor.type}, acked_by_id = ${actor.id}`;
    case 'archive':
      return sql`status = 'archived', status_before_archive = ${row.status}, archived_at = now()`;
    case 'unarchive':
      return sql`status = ${to}, status_before_archive = null, archived_at = null`;
    case 'snooze':
      return sql`snoozed_until = ${input.until ?? null}`;
    case 'unsnooze':
      return sql`snoozed_until = null`;
    case 'pin':
    case 'unpin':
      return sql`pinned = ${input.action === 'pin'}`;
    default:
      return sql`status = ${to}`;
  }
}

/** An action that would change nothing (a second ack, pinning a pinned item): recorded nowhere. */
function changesNothing(row: ItemRow, action: ItemAction): boolean {
  switch (action) {
    case 'ack':
      return row.acked_at !== null;
    case 'pin':
    case 'unpin':
      return row.pinned === (action === 'pin');
    case 'unsnooze':
      return row.snoozed_until === null;
    default:
      return false;
  }
}

/** The audit action and event of a change: an answer that does not decide is an approval or rejection. */
function recorded(change: ActionInput | Answer) {
  if (!('step' in change) || change.step.closes)
    return { action: `item.${change.action}`, event: EVENTS[change.action] };
  return {
    action: change.step.response.approves ? 'item.approve' : 'item.reject',
    event: 'item.updated' as const,
  };
}

/**
 * Applies one action of the status machine to an item, in one transaction with its audit entry,
 * event and callback. A move the machine refuses is a 409 naming the current status; one that
 * changes nothing answers the item as it is, with no audit entry, event or callback.
 */
export async function actOnItem(
  deps: Deps,
  identity: Identity | null,
  orgId: string,
  id: string,
  input: ActionInput,
): Promise<ItemView> {
  if (input.action === 'snooze' && (!input.until || input.until.getTime() <= Date.now())) {
    throw AppError.invalid({ until: 'must be in the future' });
  }
  const actor = input.byPolicy ? POLICY : identity ? actorOf(identity) : SYSTEM;
  const webhooks = await OrgFacts.has(deps, 'webhooks', orgId);
  const chatApps = await connectedChatApps(deps, orgId);
  const row = await deps.sql.begin(async (tx) => {
    const current = await findItem(tx, identity ?? { orgId }, id, true);
    const to = nextStatus(input.action, {
      status: current.status,
      statusBeforeArchive: current.status_before_archive,
      hasResponse: current.response !== null,
    });
    if (!to) {
      throw AppError.conflict('invalid_status', `cannot ${input.action} an item that is ${current.status}`, {
        status: current.status,
      });
    }
    if (changesNothing(current, input.action)) return current;
    let change: ActionInput | Answer = input;
    // A risky decision rests on the person's fresh verification (verification.ts): any other
    // credential, and a session not verified recently enough, is refused before anything is checked.
    let verified: Verification | null = null;
    if (input.action === 'answer' && current.require_reauth && !input.byPolicy) {
      const context = { now: deps.clock(), itemUrl: itemPageUrl(deps.env, id) };
      verified = await freshVerification(tx, identity, current.require_reauth, context);
    }
    if (input.action === 'answer') {
      if (!current.form)
        throw AppError.conflict('no_form', 'item has no form to answer', { status: current.status });
      const answer = validateAnswer(current.form, input.values);
      if (!answer.ok) throw AppError.validationFailed(answer.fields);
      const approver = approverCheck(current.approvals, identity);
      const step = answerStep(current, actor, identity?.userId ?? null, answer.values, deps.clock());
      change = { action: 'answer', values: answer.values, step, via: input.via, approver };
    }
    const [updated] = await tx<ItemRow[]>`
      update items set ${changesFor(tx, current, change, to, actor)}, updated_at = now()
       where org_id = ${current.org_id} and id = ${id} returning ${tx.unsafe(RETURNING)}`;
    const row = { ...(updated as ItemRow), channel_name: current.channel_name };
    // A decision (an answer, the policy's answer or dismissal, a dismissal) carries its signed
    // receipt, written in this transaction: no receipt, no decision.
    if (row.status !== current.status && DECISIONS.has(row.status)) {
      verified ??= identity && actor.type === 'user' ? await sessionVerification(tx, identity) : null;
      row.receipt = await issueReceipt(tx, deps.env, row, {
        actor,
        method: authMethod(identity, actor),
        verified,
      });
      await tx`update items set receipt = ${row.receipt} where org_id = ${row.org_id} and id = ${id}`;
    }
    // A delegate acting for people away says so (availability.ts).
    const behalf =
      actor.type === 'user' && identity && ON_BEHALF.has(input.action)
        ? await onBehalfOf(tx, current.org_id, identity.userId, current.assignees, deps.clock())
        : [];
    const data = {
      ...(behalf.length > 0 ? { on_behalf_of: behalf } : {}),
      ...(input.action === 'snooze' ? { until: input.until?.toISOString() } : {}),
      ...(input.via ? { answered_via: input.via } : {}),
      ...('approver' in change ? change.approver : {}),
    };
    // Leaving open drops the expiry job; coming back (unarchive, restore) schedules it again, to
    // run at once if the deadline passed meanwhile. The same for the pending step of its
    // escalation policy. An acknowledgement ends the notifications again; leaving open pauses
    // them, returning resumes.
    const leftOrReturned = (current.status === 'open') !== (row.status === 'open');
    const schedule = [
      current.deadline_at && leftOrReturned ? expirySchedule(tx, row) : null,
      leftOrReturned ? escalationSchedule(tx, row) : null,
      leftOrReturned || input.action === 'ack' ? repeatSchedule(tx, row, deps.clock()) : null,
    ];
    await recordChange(tx, { row, actor, data, webhooks, chatApps, schedule, ...recorded(change) });
    return row;
  });
  if (input.action === 'answer' && row.status === 'answered' && row.answered_at)
    deps.metrics?.answered(row.created_at, row.answered_at, actor.type);
  return itemView(row);
}
