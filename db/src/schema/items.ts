import { actorTypes, answerSources, itemLevels, itemStatuses } from '@beckon/contracts/enums';
import { type SQL, sql } from 'drizzle-orm';
import {
  boolean,
  check,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, orgRowId, timestamps, ts, tsvector } from './columns';
import { agents } from './credentials';
import { escalationPolicies } from './oncall';
import { organizations } from './orgs';

// The enum values are the wire contract's (contracts/src/enums.ts), stored as checked text.
export { actorTypes, answerSources, itemLevels, itemStatuses };

/** An item's assignee as stored (the server's contract validates it: contracts/src/assignment/assignment.contract.ts). */
export type StoredAssignee =
  | { type: 'user' | 'team' | 'schedule'; id: string }
  | { type: 'role'; name: string };
/** A fresh user verification required to answer (contracts/src/items/reauth.contract.ts). */
export type StoredReauth = { method: 'passkey' | 'any'; within_minutes: number };
/** A step of an escalation policy as stored. */
export type StoredEscalationStep =
  | { after: string; action: 'remind' }
  | { after: string; action: 'escalate'; to: StoredAssignee[] };

export const channels = pgTable(
  'channels',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    mode: text('mode').notNull().default('open'),
    description: text('description').notNull().default(''),
    /** The escalation policy of its items that name none (contracts/src/assignment/assignment.contract.ts). */
    escalation: jsonb('escalation').$type<StoredEscalationStep[]>().notNull().default([]),
    /** Or a named policy for them (refused while named: a policy in use is not deleted). */
    escalationPolicyId: uuid('escalation_policy_id'),
    /** The fresh verification its items require to be answered, when they name none. */
    requireReauth: jsonb('require_reauth').$type<StoredReauth>(),
    ...timestamps(),
  },
  (t) => [
    foreignKey({
      name: 'channels_escalation_policy_fk',
      columns: [t.orgId, t.escalationPolicyId],
      foreignColumns: [escalationPolicies.orgId, escalationPolicies.id],
    }).onDelete('restrict'),
    primaryKey({ name: 'channels_pkey', columns: [t.orgId, t.id] }),
    uniqueIndex('channels_org_name_key').on(t.orgId, t.name),
  ],
);

export const items = pgTable(
  'items',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    message: text('message'),
    level: text('level', { enum: itemLevels }).notNull().default('info'),
    priority: integer('priority').notNull().default(2),
    channelId: uuid('channel_id'),
    tags: text('tags').array().notNull().default([]),
    form: jsonb('form'),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    /** The action the answer decides ({kind, args, policy_version}) and its JCS SHA-256 digest. */
    action: jsonb('action'),
    actionDigest: text('action_digest'),
    /** The signed receipt (compact JWS) of the decision that closed it; null while undecided. */
    receipt: text('receipt'),
    /** Answering needs a fresh user verification (a passkey, or any sign-in) within N minutes. */
    requireReauth: jsonb('require_reauth').$type<StoredReauth>(),
    callbackUrl: text('callback_url'),
    /** W3C trace context of the request that created the item (MCP `_meta`), sent with its callbacks. */
    traceContext: jsonb('trace_context').$type<{ traceparent: string; tracestate?: string }>(),
    deadlineAt: ts('deadline_at'),
    status: text('status', { enum: itemStatuses }).notNull().default('open'),
    /** The status an archived item returns to on unarchive. */
    statusBeforeArchive: text('status_before_archive', { enum: itemStatuses }),
    response: jsonb('response'),
    answeredAt: ts('answered_at'),
    answeredByType: text('answered_by_type', { enum: actorTypes }),
    answeredById: uuid('answered_by_id'),
    /** Where the answer came from when not the API or the dashboard: `email`, `slack`. */
    answeredVia: text('answered_via', { enum: answerSources }),
    ackedAt: ts('acked_at'),
    snoozedUntil: ts('snoozed_until'),
    pinned: boolean('pinned').notNull().default(false),
    archivedAt: ts('archived_at'),
    /** Who should answer (modules/assignment/assignees.ts): `[{type: "user"|"team", id} | {type: "role", name}]`. */
    assignees: jsonb('assignees').$type<StoredAssignee[]>().notNull().default([]),
    /** `user:<id>`, `team:<id>`, `role:<name>` of the assignees: what "assigned to me" matches. */
    assigneeKeys: text('assignee_keys').array().notNull().default([]),
    /** Who said they are working on it (a person or an agent), and since when. */
    claimedByType: text('claimed_by_type', { enum: ['user', 'agent'] }),
    claimedById: uuid('claimed_by_id'),
    claimedAt: ts('claimed_at'),
    /** Reminders and escalation steps, and how many of them have run (modules/items/changes/escalate-item.ts). */
    escalation: jsonb('escalation').$type<StoredEscalationStep[]>().notNull().default([]),
    escalationStep: integer('escalation_step').notNull().default(0),
    /** The named policy its steps were copied from (null: inline steps, or the policy was deleted). */
    escalationPolicyId: uuid('escalation_policy_id'),
    /** Minutes between notifications again until someone acknowledges (null: no repetition). */
    repeatEveryMinutes: integer('repeat_every_minutes'),
    /** How many times it has been notified again (modules/items/changes/repeat-item.ts). */
    repeatCount: integer('repeat_count').notNull().default(0),
    /** Who acknowledged it (acked_at): the acknowledgement ends the repetition. */
    ackedByType: text('acked_by_type', { enum: actorTypes }),
    ackedById: uuid('acked_by_id'),
    createdByType: text('created_by_type', { enum: actorTypes }).notNull(),
    createdById: uuid('created_by_id'),
    agentId: uuid('agent_id'),
    /** What happens at the deadline (null: expire); fixed at creation. See modules/items/policies. */
    onTimeout: jsonb('on_timeout'),
    /** Several people must approve (null: one answer decides); fixed at creation. */
    approvals: jsonb('approvals'),
    /** Every answer, oldest first: `[{by, user_id, values, approves, at}]`. */
    responses: jsonb('responses').notNull().default([]),
    search: tsvector('search').generatedAlwaysAs(
      (): SQL =>
        sql`to_tsvector('simple', coalesce(${items.title}, '') || ' ' || coalesce(${items.message}, ''))`,
    ),
    ...timestamps(),
  },
  (t) => [
    // `on delete set null` of the id column alone, `org_id` kept (written out in the migration: drizzle
    // has no column list for it).
    foreignKey({
      name: 'items_agent_fk',
      columns: [t.orgId, t.agentId],
      foreignColumns: [agents.orgId, agents.id],
    }).onDelete('set null'),
    foreignKey({
      name: 'items_escalation_policy_fk',
      columns: [t.orgId, t.escalationPolicyId],
      foreignColumns: [escalationPolicies.orgId, escalationPolicies.id],
    }).onDelete('set null'),
    foreignKey({
      name: 'items_channel_fk',
      columns: [t.orgId, t.channelId],
      foreignColumns: [channels.orgId, channels.id],
    }).onDelete('set null'),
    primaryKey({ name: 'items_pkey', columns: [t.orgId, t.id] }),
    // Jobs, links and answers from chats find an item by its id alone.
    index('items_id_idx').on(t.id),
    // Lists: pinned first, newest first (ids are UUID v7), keyset on (pinned, id). Plain ascending
    // indexes, scanned backwards, match `order by pinned desc, id desc` (nulls first) exactly.
    index('items_org_list_idx').on(t.orgId, t.pinned, t.id),
    index('items_org_status_idx').on(t.orgId, t.status, t.pinned, t.id),
    index('items_org_channel_idx').on(t.orgId, t.channelId, t.pinned, t.id),
    index('items_search_idx').using('gin', t.search),
    index('items_assignee_keys_idx').using('gin', t.assigneeKeys),
    index('items_claimed_idx').on(t.orgId, t.claimedById).where(sql`${t.claimedById} is not null`),
    // Retention (modules/retention): an organization's oldest items, comments, attachments.
    index('items_org_created_idx').on(t.orgId, t.createdAt),
    index('items_deadline_idx')
      .on(t.deadlineAt)
      .where(sql`${t.status} = 'open' and ${t.deadlineAt} is not null`),
    check('items_priority', sql`${t.priority} between 0 and 4`),
  ],
);

export const comments = pgTable(
  'comments',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    itemId: uuid('item_id').notNull(),
    body: text('body').notNull(),
    actorType: text('actor_type', { enum: actorTypes }).notNull(),
    actorId: uuid('actor_id'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'comments_pkey', columns: [t.orgId, t.id] }),
    foreignKey({
      name: 'comments_item_fk',
      columns: [t.orgId, t.itemId],
      foreignColumns: [items.orgId, items.id],
    }).onDelete('cascade'),
    index('comments_item_idx').on(t.itemId, t.id),
    index('comments_org_created_idx').on(t.orgId, t.createdAt),
  ],
);

export const attachments = pgTable(
  'attachments',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    itemId: uuid('item_id').notNull(),
    filename: text('filename').notNull(),
    contentType: text('content_type').notNull(),
    size: integer('size').notNull(),
    sha256: text('sha256').notNull(),
    storageKey: text('storage_key').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'attachments_pkey', columns: [t.orgId, t.id] }),
    foreignKey({
      name: 'attachments_item_fk',
      columns: [t.orgId, t.itemId],
      foreignColumns: [items.orgId, items.id],
    }).onDelete('cascade'),
    index('attachments_item_idx').on(t.itemId, t.id),
    // An organization's storage in use (its plan's quota) is summed from this index alone.
    index('attachments_org_size_idx').on(t.orgId, t.size),
    index('attachments_org_created_idx').on(t.orgId, t.createdAt),
  ],
);

export const templates = pgTable(
  'templates',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    /** Item-creation fields the template fills in when a request leaves them out. */
    fields: jsonb('fields').$type<Record<string, unknown>>().notNull().default({}),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ name: 'templates_pkey', columns: [t.orgId, t.id] }),
    uniqueIndex('templates_org_name_key').on(t.orgId, t.name),
  ],
);
