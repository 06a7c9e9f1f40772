import type { Escalation } from '@beckon/contracts/assignment/assignment.contract';
import type { RequireReauth } from '@beckon/contracts/items/reauth.contract';
import type { Queryable } from '@beckon/db';
import { AppError } from '../../../errors';
import { addJob } from '../../../job-queue';
import { type Part, part } from '../../../statement-parts';
import { itemNamesSql } from './item-names';
import { ITEM_COLUMNS, type ItemRow } from './item-view';

/** Shared by the item operations: the row with its channel name, channels, deadlines, expiry. */
const SELECTED = `${ITEM_COLUMNS.map((column) => `i.${column}`).join(', ')}, ${itemNamesSql('i.')}`;
export const RETURNING = `${ITEM_COLUMNS.join(', ')}, ${itemNamesSql('items.')}`;

export const SELECT = (sql: Queryable) =>
  sql`select ${sql.unsafe(SELECTED)}, (select c.name from channels c where c.org_id = i.org_id and c.id = i.channel_id) as channel_name
        from items i`;

export async function channelName(sql: Queryable, orgId: string, channelId: string | null | undefined) {
  return (await channelOf(sql, orgId, channelId))?.name ?? null;
}

/** An item's channel: its name and the defaults of its items (escalation, require_reauth; one query); a foreign id is a 400. */
export async function channelOf(sql: Queryable, orgId: string, channelId: string | null | undefined) {
  if (!channelId) return null;
  const [channel] = await sql<
    {
      name: string;
      escalation: Escalation;
      escalation_policy_id: string | null;
      require_reauth: RequireReauth | null;
    }[]
  >`
    select name, escalation, escalation_policy_id, require_reauth from channels where id = ${channelId} and org_id = ${orgId}`;
  if (!channel) throw AppError.invalid({ channel_id: 'unknown channel' });
  return channel;
}

export async function channelIdByName(sql: Queryable, orgId: string, name: string) {
  const [channel] = await sql<
    { id: string }[]
  >`select id from channels where org_id = ${orgId} and name = ${name}`;
  if (!channel) throw AppError.invalid({ channel: 'unknown channel' });
  return channel.id;
}

export function futureDeadline(deadline: Date | null | undefined) {
  if (deadline && deadline.getTime() <= Date.now())
    throw AppError.invalid({ deadline_at: 'must be in the future' });
}

const expiryKey = (itemId: string) => `expire_item:${itemId}`;

/** The job that expires an open item at its deadline: one per item (job key), replaced when it moves. */
export const expiryJob = (sql: Queryable, row: ItemRow): Part | null =>
  row.deadline_at && row.status === 'open'
    ? part(
        'expiry_job',
        sql`select ${addJob(sql, 'expire_item', { item_id: row.id, org_id: row.org_id }, { runAt: row.deadline_at, key: expiryKey(row.id) })}`,
      )
    : null;

/** The expiry job of an item as it now stands: scheduled (again) while open, else removed. */
export const expirySchedule = (sql: Queryable, row: ItemRow): Part =>
  expiryJob(sql, row) ?? part('expiry_job', sql`select graphile_worker.remove_job(${expiryKey(row.id)})`);

/**
 * Which items a caller reaches: its organization's, or only those of one agent (an API key
 * created with `item_access: "own"`). An Identity is one.
 */
export type ItemScope = { orgId: string; itemsOfAgent?: string };

/** The WHERE condition of a scope, on `items i`. */
export const inScope = (sql: Queryable, scope: ItemScope) =>
  scope.itemsOfAgent
    ? sql`i.org_id = ${scope.orgId} and i.agent_id = ${scope.itemsOfAgent}`
    : sql`i.org_id = ${scope.orgId}`;

/** One item of the scope (locked for update when asked); any other id is a 404. */
export async function findItem(sql: Queryable, scope: ItemScope, id: string, lock = false): Promise<ItemRow> {
  const where = sql`i.id = ${id} and ${inScope(sql, scope)}`;
  const [row] = lock
    ? await sql<ItemRow[]>`${SELECT(sql)} where ${where} for update of i`
    : await sql<ItemRow[]>`${SELECT(sql)} where ${where}`;
  if (!row) throw AppError.notFound();
  return row;
}
