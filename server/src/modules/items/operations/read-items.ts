import type { ItemView, ListItemsInput } from '@beckon/contracts/items/item.contract';
import { actorOf, type Identity } from '../../../auth/identity';
import type { Deps } from '../../../deps';
import { AppError } from '../../../errors';
import { keysOfCaller } from '../../assignment/assignees';
import { withinBudget } from '../../paging';
import { findItem, inScope, SELECT } from '../rows/item-queries';
import { type ItemRow, itemView } from '../rows/item-view';

export async function getItem(deps: Deps, identity: Identity, id: string): Promise<ItemView> {
  return itemView(await findItem(deps.sql, identity, id));
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
  const conditions = [inScope(sql, identity)];
  if (input.status) conditions.push(sql`i.status = ${input.status}`);
  else if (!input.include_archived) conditions.push(sql`i.status <> 'archived'`);
  if (!input.include_snoozed) conditions.push(sql`(i.snoozed_until is null or i.snoozed_until <= now())`);
  if (input.channel_id) conditions.push(sql`i.channel_id = ${input.channel_id}`);
  if (input.channel) {
    conditions.push(
      sql`i.channel_id = (select c.id from channels c where c.org_id = ${identity.orgId} and c.name = ${input.channel})`,
    );
  }
  if (input.assigned_to_me) {
    // A person's own assignments (their user, teams, role); an agent is never an assignee.
    const actor = actorOf(identity);
    const keys = actor.type === 'user' ? await keysOfCaller(sql, identity.orgId, identity.userId) : [];
    conditions.push(sql`i.assignee_keys && ${keys}::text[]`);
  }
  if (input.claimed_by_me) {
    const actor = actorOf(identity);
    conditions.push(sql`i.claimed_by_id = ${actor.id} and i.claimed_by_type = ${actor.type}`);
  }
  if (input.q) conditions.push(sql`i.search @@ websearch_to_tsquery('simple', ${input.q})`);
  if (input.cursor) {
    const after = decodeCursor(input.cursor);
    conditions.push(sql`(i.pinned, i.id) < (${after.pinned}, ${after.id}::uuid)`);
  }
  const where = conditions.reduce((all, condition) => sql`${all} and ${condition}`);
  // First the candidates' sizes only, then the items that fit the byte budget: a page of large
  // items ends early (with its cursor) rather than being read into memory whole.
  const sizes = await sql<{ id: string; bytes: number }[]>`
    select i.id, octet_length(i::text) as bytes from items i
     where ${where} order by i.pinned desc, i.id desc limit ${input.limit + 1}`;
  const ids = withinBudget(sizes.slice(0, input.limit), deps.env.LIST_PAGE_MAX_BYTES);
  const rows =
    ids.length === 0
      ? []
      : await sql<ItemRow[]>`
          ${SELECT(sql)} where i.org_id = ${identity.orgId} and i.id = any(${ids}::uuid[])
           order by i.pinned desc, i.id desc`;
  const last = rows[rows.length - 1];
  return {
    items: rows.map(itemView),
    next_cursor: sizes.length > ids.length && last ? encodeCursor(last) : null,
  };
}
