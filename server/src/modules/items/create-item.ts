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
import type { Identity } from '../../auth/identity';
import { actorOf } from '../../auth/identity';
import { OrgFacts } from '../../caches/org-facts';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import type { TraceContext } from '../../trpc/context';
import { newAssignment, onCallAuditData } from '../assignment/assignees';
import { quotaError } from '../billing/plan-gate';
import { approvalsAuditData } from './approvers';
import { escalationJob } from './escalation';
import { expiryJob, followUps } from './item-changes';
import { namesOfIds, referencedIds } from './item-names';
import { channelIdByName, channelOf, futureDeadline } from './item-queries';
import { type ItemRow, itemView } from './item-view';
import { creationRecipients, notificationParts } from './notify-people';
import { itemPolicies } from './policies';

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
    fields = { ...stored.data, ...Object.fromEntries(defined) };
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
  const { assignment, onCall } = await newAssignment(sql, identity.orgId, input, channel?.escalation, now);
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
    snoozed_until: null,
    pinned: false,
    archived_at: null,
    ...assignment,
    claimed_by_type: null,
    claimed_by_id: null,
    claimed_at: null,
    escalation_step: 0,
    created_by_type: actor.type,
    created_by_id: actor.id,
    agent_id: identity.agentId,
    created_at: now,
    updated_at: now,
    ...policies,
    responses: [],
  };
  // One statement, so one round trip and no explicit transaction: the item, its audit entry,
  // its stream event and notification, its webhook jobs, push entries, mails and expiry job commit together.
  const { ctes, select } = followUps(sql, {
    row,
    action: 'item.create',
    actor,
    event: 'item.created',
    data: { ...approvalsAuditData(row.approvals), ...onCallAuditData(onCall) },
    webhooks: await OrgFacts.has(deps, 'webhooks', identity.orgId),
    slack: await OrgFacts.has(deps, 'slack', identity.orgId),
  });
  const json = (value: unknown) => (value ? sql.json(value as never) : null);
  const creator = actor.type === 'user' ? actor.id : null;
  const notify = await notificationParts(
    deps,
    sql,
    row,
    await creationRecipients(sql, row.org_id, row.assignees, creator),
    'created',
  );
  const escalation = escalationJob(sql, row);
  // The monthly_notifications gate is the items trigger of migration 0004 (race-free counting).
  const [created] = await sql<{ names: Record<string, string> }[]>`
    with item as (
      insert into items (id, org_id, title, message, level, priority, channel_id, tags, form, action,
                         action_digest, metadata, callback_url, deadline_at, created_by_type, created_by_id, agent_id,
                         created_at, updated_at, on_timeout, approvals, assignees, assignee_keys, escalation, trace_context,
                         require_reauth)
      values (${row.id}, ${row.org_id}, ${row.title}, ${row.message}, ${row.level}, ${row.priority}, ${row.channel_id},
              ${row.tags}, ${row.form ? sql.json(row.form as never) : null}, ${json(row.action)},
              ${row.action_digest}, ${sql.json(row.metadata as never)},
              ${row.callback_url}, ${row.deadline_at}, ${row.created_by_type}, ${row.created_by_id}, ${row.agent_id},
              ${row.created_at}, ${row.updated_at}, ${json(row.on_timeout)}, ${json(row.approvals)},
              ${sql.json(row.assignees as never)}, ${row.assignee_keys}, ${sql.json(row.escalation as never)},
              ${json(row.trace_context)}, ${json(row.require_reauth)})
    ), ${ctes}${notify ? sql`, ${notify.ctes}` : sql``}
    select ${namesOfIds(sql, row.org_id, referencedIds(row))} as names, ${select}${row.deadline_at ? sql`, ${expiryJob(sql, row)}` : sql``}
      ${notify ? sql`, ${notify.select}` : sql``}${escalation ? sql`, ${escalation}` : sql``}`.catch(
    (error: unknown) => {
      throw quotaError(deps.env, error) ?? error;
    },
  );
  return itemView({ ...row, names: created?.names });
}
