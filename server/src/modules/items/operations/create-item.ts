import { createHash } from 'node:crypto';
import {
  type CreateItemInput,
  ITEM_DEFAULTS,
  type ItemFields,
  type ItemView,
  ZItemFields,
} from '@beckon/contracts/items/item.contract';
import { actionPayload, type BindableAction } from '@beckon/contracts/proofs/action';
import { canonicalize } from '@beckon/contracts/proofs/jcs';
import type { Queryable } from '@beckon/db';
import { uuidv7 } from 'uuidv7';
import type { Identity } from '../../../auth/identity';
import { actorOf } from '../../../auth/identity';
import { OrgFacts } from '../../../caches/org-facts';
import type { Deps } from '../../../deps';
import { AppError } from '../../../errors';
import { part } from '../../../statement-parts';
import type { TraceContext } from '../../../trpc/context';
import { newAssignment, onCallAuditData } from '../../assignment/assignees';
import { quotaError } from '../../billing/plan-gate';
import { connectedChatApps } from '../changes/chat-follow-ups';
import { escalationJob } from '../changes/escalate-item';
import { creationRecipients, delegationAuditData, notificationParts } from '../changes/notify-people';
import { eventNames, recordChange } from '../changes/record-change';
import { repeatJob } from '../changes/repeat-item';
import { channelIdByName, channelOf, expiryJob, futureDeadline } from '../rows/item-queries';
import { type ItemRow, itemView } from '../rows/item-view';
import { approvalsAuditData } from '../state/approvers';
import { itemPolicies } from '../state/policies';

/** The columns of a new item written as they are (the JSON ones are encoded as such). */
const PLAIN_COLUMNS = [
  'id',
  'org_id',
  'title',
  'message',
  'level',
  'priority',
  'channel_id',
  'tags',
  'action_digest',
  'callback_url',
  'deadline_at',
  'created_by_type',
  'created_by_id',
  'agent_id',
  'created_at',
  'updated_at',
  'assignee_keys',
  'escalation_policy_id',
  'repeat_every_minutes',
] as const satisfies readonly (keyof ItemRow)[];

const pick = <T, K extends keyof T>(row: T, keys: readonly K[]) =>
  Object.fromEntries(keys.map((key) => [key, row[key]])) as Pick<T, K>;

const ESCALATION_KEYS = new Set(['escalation', 'escalation_policy_id']);

/**
 * The fields of a new item: what the request gives, then what its template holds for the fields
 * the request leaves out (field by field: the request wins), then the documented defaults.
 */
async function itemFields(sql: Queryable, orgId: string, input: CreateItemInput) {
  const { template, ...given } = input;
  let fields: ItemFields = given;
  if (template !== undefined) {
    const [row] = await sql<{ fields: unknown }[]>`
      select fields from templates where org_id = ${orgId} and name = ${template}`;
    if (!row) throw AppError.invalid({ template: 'unknown template' });
    // Stored as validated JSON; parsed again to turn the deadline back into a Date.
    const stored = ZItemFields.safeParse(row.fields);
    if (!stored.success) throw AppError.invalid({ template: 'template fields are no longer valid' });
    const defined = Object.entries(given).filter(([, value]) => value !== undefined);
    // Inline steps and a named policy are one choice: the request's replaces the template's.
    const ownEscalation = given.escalation !== undefined || given.escalation_policy_id !== undefined;
    const kept = Object.entries(stored.data).filter(([key]) => !ownEscalation || !ESCALATION_KEYS.has(key));
    fields = { ...Object.fromEntries(kept), ...Object.fromEntries(defined) };
  }
  const { title } = fields;
  if (title === undefined) throw AppError.invalid({ title: 'Required' });
  return {
    ...fields,
    title,
    level: fields.level ?? ITEM_DEFAULTS.level,
    priority: fields.priority ?? ITEM_DEFAULTS.priority,
    tags: fields.tags ?? [...ITEM_DEFAULTS.tags],
    metadata: fields.metadata ?? { ...ITEM_DEFAULTS.metadata },
  };
}

/** An action as bound to an item (stored as JSON keeps it) and its digest over exactly that. */
function boundAction(action: CreateItemInput['action']) {
  if (!action) return { action: null, action_digest: null };
  const bound = JSON.parse(JSON.stringify(actionPayload(action))) as BindableAction;
  return {
    action: bound,
    action_digest: createHash('sha256').update(canonicalize(bound)).digest('hex'),
  };
}

export async function createItem(
  deps: Deps,
  identity: Identity,
  request: CreateItemInput,
  /** The creating request's trace context, sent with the item's callbacks. */
  trace?: TraceContext,
): Promise<ItemView> {
  const actor = actorOf(identity);
  const { sql } = deps;
  const { channel: byName, action, ...given } = request;
  const channelId =
    byName === undefined ? given.channel_id : await channelIdByName(sql, identity.orgId, byName);
  const input = await itemFields(sql, identity.orgId, { ...given, channel_id: channelId });
  const channel = await channelOf(sql, identity.orgId, input.channel_id);
  futureDeadline(input.deadline_at);
  const now = deps.clock();
  const { assignment, onCall } = await newAssignment(sql, identity.orgId, input, channel, now);
  const policies = itemPolicies(input, identity.userId);
  const row: ItemRow = {
    id: uuidv7(),
    org_id: identity.orgId,
    title: input.title,
    message: input.message ?? null,
    level: input.level,
    priority: input.priority,
    channel_id: input.channel_id ?? null,
    channel_name: channel?.name ?? null,
    tags: input.tags,
    form: input.form ?? null,
    ...boundAction(action),
    receipt: null,
    // The request's or its template's, else the channel's.
    require_reauth: input.require_reauth ?? channel?.require_reauth ?? null,
    metadata: input.metadata,
    callback_url: input.callback_url ?? null,
    trace_context: input.callback_url && trace ? trace : null,
    deadline_at: input.deadline_at ?? null,
    status: 'open',
    status_before_archive: null,
    response: null,
    answered_at: null,
    answered_by_type: null,
    answered_by_id: null,
    answered_via: null,
    acked_at: null,
    acked_by_type: null,
    acked_by_id: null,
    repeat_every_minutes: input.repeat_until_ack?.every_minutes ?? null,
    snoozed_until: null,
    pinned: false,
    archived_at: null,
    ...assignment,
    claimed_by_type: null,
    claimed_by_id: null,
    claimed_at: null,
    escalation_step: 0,
    repeat_count: 0,
    created_by_type: actor.type,
    created_by_id: actor.id,
    agent_id: identity.agentId,
    created_at: now,
    updated_at: now,
    ...policies,
    responses: [],
  };
  const creator = actor.type === 'user' ? actor.id : null;
  const recipients = await creationRecipients(sql, row.org_id, row.assignees, creator, now);
  const json = (value: unknown) => (value ? sql.json(value as never) : null);
  const columns = {
    ...pick(row, PLAIN_COLUMNS),
    form: json(row.form),
    action: json(row.action),
    metadata: sql.json(row.metadata as never),
    on_timeout: json(row.on_timeout),
    approvals: json(row.approvals),
    assignees: sql.json(row.assignees as never),
    escalation: sql.json(row.escalation as never),
    trace_context: json(row.trace_context),
    require_reauth: json(row.require_reauth),
  };
  // One statement, so one round trip and no explicit transaction: the item with everything that
  // follows its creation (record-change.ts). The monthly_notifications gate is the items trigger
  // of migration 0004 (race-free counting).
  const names = await recordChange(sql, {
    write: part('item', sql`insert into items ${sql(columns)} returning id`),
    row,
    action: 'item.create',
    actor,
    event: 'item.created',
    data: {
      ...approvalsAuditData(row.approvals),
      ...onCallAuditData(onCall),
      ...delegationAuditData(recipients),
    },
    webhooks: await OrgFacts.has(deps, 'webhooks', identity.orgId),
    chatApps: await connectedChatApps(deps, identity.orgId),
    notify: await notificationParts(deps, sql, row, recipients, 'created'),
    schedule: [expiryJob(sql, row), escalationJob(sql, row), repeatJob(sql, row, row.created_at)],
    result: eventNames(sql),
  }).catch((error: unknown) => {
    throw quotaError(deps.env, error) ?? error;
  });
  return itemView({ ...row, names: names as Record<string, string> | undefined });
}
