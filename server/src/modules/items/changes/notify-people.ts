import type { Assignee, EscalationStep } from '@beckon/contracts/assignment/assignment.contract';
import type { Queryable } from '@beckon/db';
import { OrgFacts } from '../../../caches/org-facts';
import type { Deps } from '../../../deps';
import type { Part } from '../../../statement-parts';
import { peopleOf } from '../../assignment/assignees';
import { emailEntries } from '../../email/email-entries';
import { type NotifyReason, type PushedItem, pushEntries, type Recipients } from '../../push/push-entries';
import { type Delegation, reachable } from '../../schedules/availability';
import type { ItemRow } from '../rows/item-view';
import { personalMessages } from './personal-messages';

export type { NotifyReason, Recipients };

/** Recipients with whose notifications went to a delegate (out of office). */
export type Reached = Recipients & { delegated?: Delegation[] };

/** `{delegated}` for an audit entry's data when someone away was replaced by their delegate. */
export const delegationAuditData = (recipients: Reached) =>
  recipients.delegated?.length ? { delegated: recipients.delegated } : {};

/** The people to notify at `at` in place of `people` (availability.ts: out of office, working hours). */
export async function reachedOf(sql: Queryable, orgId: string, people: string[], at: Date): Promise<Reached> {
  const reached = await reachable(sql, orgId, people, at);
  return { only: reached.people, delegated: reached.delegated };
}

/**
 * Who hears of a new item at `at`: its assignees (the people behind them, or their delegates
 * while away) when it has some, else everyone who may read items; never its creator.
 */
export async function creationRecipients(
  sql: Queryable,
  orgId: string,
  assignees: Assignee[],
  creatorUserId: string | null,
  at: Date,
): Promise<Reached> {
  if (assignees.length === 0) return { except: creatorUserId };
  const people = await peopleOf(sql, orgId, assignees);
  const reached = await reachedOf(sql, orgId, people, at);
  return { ...reached, only: 'only' in reached ? reached.only.filter((id) => id !== creatorUserId) : [] };
}

/**
 * The notifications of an item as parts of the change's statement (record-change.ts); none when
 * there is nothing to write (nobody to reach, or an organization without devices and mail). Every
 * notification goes through here (creation, assignment, reminders, escalation), each channel
 * adding its entries: pushes (push-entries.ts), mails (email-entries.ts), and the direct messages
 * and texts of the people named (personal-messages.ts), under the same recipients and preferences.
 */
export async function notificationParts(
  deps: Deps,
  sql: Queryable,
  item: PushedItem,
  recipients: Recipients,
  reason: NotifyReason,
): Promise<Part[]> {
  if ('only' in recipients && recipients.only.length === 0) return [];
  const now = deps.clock();
  const parts: Part[] = [];
  if (await OrgFacts.has(deps, 'devices', item.org_id))
    parts.push(...pushEntries(sql, deps.env, item, recipients, now, reason));
  if (deps.mailer.configured && (await OrgFacts.has(deps, 'email', item.org_id)))
    parts.push(...emailEntries(sql, item, recipients, now, reason));
  if ('only' in recipients) parts.push(...personalMessages(sql, item, recipients.only, now, reason));
  return parts;
}

/**
 * Who a step of an escalation policy notifies: a reminder, whoever the item waits for (the
 * person who claimed it, else its assignees, else everyone but its creator); an escalation, the
 * people it adds; people away replaced by their delegates.
 */
export async function peopleFor(
  sql: Queryable,
  row: ItemRow,
  step: EscalationStep,
  at: Date,
): Promise<Reached> {
  if (step.action === 'escalate')
    return reachedOf(sql, row.org_id, await peopleOf(sql, row.org_id, step.to), at);
  if (row.claimed_by_type === 'user' && row.claimed_by_id) return { only: [row.claimed_by_id] };
  const creator = row.created_by_type === 'user' ? row.created_by_id : null;
  return creationRecipients(sql, row.org_id, row.assignees, creator, at);
}
