import type { Queryable } from '@beckon/db';
import { uuidv7 } from 'uuidv7';
import type { Identity } from '../../auth/identity';
import { OrgFacts } from '../../caches/org-facts';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { quotaError } from '../billing/plan-gate';
import { pushEntries } from '../push/push-entries';
import { validateAnswer } from './form';
import {
  type CreateItemInput,
  ITEM_DEFAULTS,
  type ItemFields,
  type ItemView,
  type ListItemsInput,
  type UpdateItemInput,
  ZItemFields,
} from './item.contract';
import {
  type Actor,
  actorOf,
  type EventKind,
  expiryJob,
  followUps,
  recordItemChange,
  SYSTEM,
} from './item-changes';
import { type ItemAction, nextStatus } from './item-state';
import { type ItemRow, itemView } from './item-view';

/** Every column an item view needs (not the search vector). */
const COLUMNS = [
  'id',
  'org_id',
  'title',
  'message',
  'level',
  'priority',
  'channel_id',
  'tags',
  'form',
  'metadata',
  'callback_url',
  'deadline_at',
  'status',
  'status_before_archive',
  'response',
  'answered_at',
  'answered_by_type',
  'answered_by_id',
  'acked_at',
  'snoozed_until',
  'pinned',
  'archived_at',
  'created_by_type',
  'created_by_id',
  'agent_id',
  'created_at',
  'updated_at',
];
const ITEM_COLUMNS = COLUMNS.map((column) => `i.${column}`).join(', ');
const RETURNING = COLUMNS.join(', ');

const SELECT = (sql: Queryable) =>
  sql`select ${sql.unsafe(ITEM_COLUMNS)}, (select c.name from channels c where c.id = i.channel_id) as channel_name
        from items i`;

async function channelName(sql: Queryable, orgId: string, channelId: string | null | undefined) {
  if (!channelId) return null;
  const [channel] = await sql<{ name: string }[]>`
    select name from channels where id = ${channelId} and org_id = ${orgId}`;
  if (!channel) throw AppError.invalid({ channel_id: 'unknown channel' });
  return channel.name;
}

async function channelIdByName(sql: Queryable, orgId: string, name: string) {
  const [channel] = await sql<
    { id: string }[]
  >`select id from channels where org_id = ${orgId} and name = ${name}`;
  if (!channel) throw AppError.invalid({ channel: 'unknown channel' });
  return channel.id;
}

function futureDeadline(deadline: Date | null | undefined) {
  if (deadline && deadline.getTime() <= Date.now())
    throw AppError.invalid({ deadline_at: 'must be in the future' });
}

/** The expiry job of an item: one per item (job key), replaced when the deadline moves. */
async function scheduleExpiry(sql: Queryable, row: ItemRow) {
  const key = `expire_item:${row.id}`;
  if (row.deadline_at && row.status === 'open') {
    await sql`select ${expiryJob(sql, row)}`;
  } else {
    await sql`select graphile_worker.remove_job(${key})`;
  }
}

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

export async function createItem(
  deps: Deps,
  identity: Identity,
  request: CreateItemInput,
  /** Who the item says created it (an inbound webhook differs from its identity). */
  actor: Actor = actorOf(identity),
): Promise<ItemView> {
  const { sql } = deps;
  const { channel: byName, ...given } = request;
  const channelId =
    byName === undefined ? given.channel_id : await channelIdByName(sql, identity.orgId, byName);
  const input = await itemFields(sql, identity.orgId, { ...given, channel_id: channelId });
  const channel = await channelName(sql, identity.orgId, input.channel_id);
  futureDeadline(input.deadline_at);
  const now = deps.clock();
  const row: ItemRow = {
    id: uuidv7(),
    org_id: identity.orgId,
    title: input.title,
    message: input.message ?? null,
    level: input.level,
    priority: input.priority,
    channel_id: input.channel_id ?? null,
    channel_name: channel,
    tags: input.tags,
    form: input.form ?? null,
    metadata: input.metadata,
    callback_url: input.callback_url ?? null,
    deadline_at: input.deadline_at ?? null,
    status: 'open',
    status_before_archive: null,
    response: null,
    answered_at: null,
    answered_by_type: null,
    answered_by_id: null,
    acked_at: null,
    snoozed_until: null,
    pinned: false,
    archived_at: null,
    created_by_type: actor.type,
    created_by_id: actor.id,
    agent_id: identity.agentId,
    created_at: now,
    updated_at: now,
  };
  // One statement, so one round trip and no explicit transaction: the item, its audit entry,
  // its stream event and notification, its webhook jobs, push entries and expiry job commit together.
  const { ctes, select } = followUps(sql, {
    row,
    action: 'item.create',
    actor,
    event: 'item.created',
    webhooks: await OrgFacts.has(deps, 'webhooks', identity.orgId),
  });
  const push = await OrgFacts.has(deps, 'devices', identity.orgId);
  // The monthly_notifications gate is the items trigger of migration 0004 (race-free counting).
  await sql`
    with item as (
      insert into items (id, org_id, title, message, level, priority, channel_id, tags, form, metadata,
                         callback_url, deadline_at, created_by_type, created_by_id, agent_id, created_at, updated_at)
      values (${row.id}, ${row.org_id}, ${row.title}, ${row.message}, ${row.level}, ${row.priority}, ${row.channel_id},
              ${row.tags}, ${row.form ? sql.json(row.form as never) : null}, ${sql.json(row.metadata as never)},
              ${row.callback_url}, ${row.deadline_at}, ${row.created_by_type}, ${row.created_by_id}, ${row.agent_id},
              ${row.created_at}, ${row.updated_at})
    ), ${ctes}${push ? sql`, ${pushEntries(sql, deps.env, row, actor.type === 'user' ? actor.id : null, now)}` : sql``}
    select ${select}${row.deadline_at ? sql`, ${expiryJob(sql, row)}` : sql``}
      ${push ? sql`, (select count(*) from push_jobs)` : sql``}`.catch((error: unknown) => {
    throw quotaError(deps.env, error) ?? error;
  });
  return itemView(row);
}

export async function findItem(sql: Queryable, orgId: string, id: string, lock = false): Promise<ItemRow> {
  const [row] = lock
    ? await sql<ItemRow[]>`${SELECT(sql)} where i.id = ${id} and i.org_id = ${orgId} for update of i`
    : await sql<ItemRow[]>`${SELECT(sql)} where i.id = ${id} and i.org_id = ${orgId}`;
  if (!row) throw AppError.notFound();
  return row;
}

export async function getItem(deps: Deps, identity: Identity, id: string): Promise<ItemView> {
  return itemView(await findItem(deps.sql, identity.orgId, id));
}

type Cursor = { pinned: boolean; id: string };

const encodeCursor = (c: Cursor) =>
  Buffer.from(JSON.stringify([c.pinned ? 1 : 0, c.id])).toString('base64url');

function decodeCursor(cursor: string): Cursor {
  try {
    const [pinned, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [unknown, unknown];
    if ((pinned === 0 || pinned === 1) && typeof id === 'string' && /^[0-9a-f-]{36}$/.test(id)) {
      return { pinned: pinned === 1, id };
    }
  } catch {}
  throw AppError.invalid({ cursor: 'invalid cursor' });
}

/** Keyset pagination over (pinned, id): pinned first, newest first, stable under inserts. */
export async function listItems(deps: Deps, identity: Identity, input: ListItemsInput) {
  const { sql } = deps;
  const conditions = [sql`i.org_id = ${identity.orgId}`];
  if (input.status) conditions.push(sql`i.status = ${input.status}`);
  else if (!input.include_archived) conditions.push(sql`i.status <> 'archived'`);
  if (!input.include_snoozed) conditions.push(sql`(i.snoozed_until is null or i.snoozed_until <= now())`);
  if (input.channel_id) conditions.push(sql`i.channel_id = ${input.channel_id}`);
  if (input.channel) {
    conditions.push(
      sql`i.channel_id = (select c.id from channels c where c.org_id = ${identity.orgId} and c.name = ${input.channel})`,
    );
  }
  if (input.q) conditions.push(sql`i.search @@ websearch_to_tsquery('simple', ${input.q})`);
  if (input.cursor) {
    const after = decodeCursor(input.cursor);
    conditions.push(sql`(i.pinned, i.id) < (${after.pinned}, ${after.id}::uuid)`);
  }
  const where = conditions.reduce((all, condition) => sql`${all} and ${condition}`);
  const rows = await sql<ItemRow[]>`
    ${SELECT(sql)} where ${where} order by i.pinned desc, i.id desc limit ${input.limit + 1}`;
  const page = rows.slice(0, input.limit);
  const last = page[page.length - 1];
  return {
    items: page.map(itemView),
    next_cursor: rows.length > input.limit && last ? encodeCursor(last) : null,
  };
}

export async function updateItem(deps: Deps, identity: Identity, input: UpdateItemInput): Promise<ItemView> {
  const { sql } = deps;
  const { id, ...fields } = input;
  futureDeadline(fields.deadline_at);
  const channel =
    fields.channel_id === undefined ? undefined : await channelName(sql, identity.orgId, fields.channel_id);
  const row = await sql.begin(async (tx) => {
    await findItem(tx, identity.orgId, id, true);
    const set: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(fields)) {
      if (value !== undefined) set[key] = key === 'metadata' ? tx.json(value as never) : value;
    }
    const [updated] = await tx<ItemRow[]>`
      update items set ${tx(set)}, updated_at = now() where id = ${id} returning ${tx.unsafe(RETURNING)}`;
    const row = { ...(updated as ItemRow), channel_name: channel ?? null };
    if (channel === undefined) row.channel_name = await channelName(tx, identity.orgId, row.channel_id);
    await recordItemChange(tx, {
      row,
      action: 'item.update',
      actor: actorOf(identity),
      event: 'item.updated',
      data: { fields: Object.keys(set) },
    });
    if ('deadline_at' in set) await scheduleExpiry(tx, row);
    return row;
  });
  return itemView(row);
}

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

export type ActionInput = { action: ItemAction; values?: unknown; until?: Date };

/** The column changes of an allowed move (the status machine has already said yes). */
function changesFor(
  sql: Queryable,
  row: ItemRow,
  input: ActionInput,
  to: ItemRow['status'],
  actor: ReturnType<typeof actorOf>,
) {
  switch (input.action) {
    case 'answer':
      return sql`status = ${to}, response = ${sql.json(input.values as never)}, answered_at = now(),
                 answered_by_type = ${actor.type}, answered_by_id = ${actor.id}`;
    case 'ack':
      return sql`acked_at = coalesce(acked_at, now())`;
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
  const actor = identity ? actorOf(identity) : SYSTEM;
  const webhooks = await OrgFacts.has(deps, 'webhooks', orgId);
  const row = await deps.sql.begin(async (tx) => {
    const current = await findItem(tx, orgId, id, true);
    const to = nextStatus(input.action, {
      status: current.status,
      statusBeforeArchive: current.status_before_archive,
      hasResponse: current.response !== null,
    });
    if (!to) {
      throw AppError.conflict(`cannot ${input.action} an item that is ${current.status}`, {
        status: current.status,
      });
    }
    if (changesNothing(current, input.action)) return current;
    if (input.action === 'answer') {
      if (!current.form) throw AppError.conflict('item has no form to answer', { status: current.status });
      const answer = validateAnswer(current.form, input.values);
      if (!answer.ok) throw AppError.validationFailed(answer.fields);
      input = { ...input, values: answer.values };
    }
    const [updated] = await tx<ItemRow[]>`
      update items set ${changesFor(tx, current, input, to, actor)}, updated_at = now()
       where id = ${id} returning ${tx.unsafe(RETURNING)}`;
    const row = { ...(updated as ItemRow), channel_name: current.channel_name };
    const data = input.action === 'snooze' ? { until: input.until?.toISOString() } : {};
    await recordItemChange(tx, {
      row,
      action: `item.${input.action}`,
      actor,
      event: EVENTS[input.action],
      data,
      webhooks,
    });
    // Leaving open drops the expiry job; coming back (unarchive, restore) schedules it again, to
    // run at once if the deadline passed meanwhile.
    if (current.deadline_at && (current.status === 'open') !== (row.status === 'open'))
      await scheduleExpiry(tx, row);
    return row;
  });
  return itemView(row);
}
