import type { AuditEntryView, ListAuditInput } from '@beckon/contracts/audit/audit.contract';
import type { Queryable } from '@beckon/db';
import { uuidv7 } from 'uuidv7';
import { type Actor, actorOf, type Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { decodeIdCursor, encodeIdCursor, withinBudget } from '../paging';

export type AuditEntry = {
  orgId: string;
  /** The item it concerns, if any. */
  itemId?: string;
  action: string;
  actor: Actor;
  data: Record<string, unknown>;
};

/** The one INSERT of an audit entry, to run alone or inside a caller's statement (item changes). */
export const auditInsert = (sql: Queryable, entry: AuditEntry) =>
  sql`insert into audit_entries (id, org_id, item_id, action, actor_type, actor_id, data)
      values (${uuidv7()}, ${entry.orgId}, ${entry.itemId ?? null}, ${entry.action}, ${entry.actor.type},
              ${entry.actor.id}, ${sql.json(entry.data as never)})`;

/** An audit entry without an item (sign-ins, credentials, organization changes), in `tx`. */
export async function recordAudit(tx: Queryable, entry: AuditEntry): Promise<void> {
  await tx`${auditInsert(tx, entry)}`;
}

/** An audit entry for an organization-level change by the caller, in the caller's transaction. */
export const recordOrgChange = (
  tx: Queryable,
  identity: Identity,
  action: string,
  data: Record<string, unknown>,
) => recordAudit(tx, { orgId: identity.orgId, action, actor: actorOf(identity), data });

type AuditRow = Omit<AuditEntryView, 'created_at'> & { created_at: Date };

/** The organization's audit log, newest first, keyset-paginated on id. */
export async function listAudit(deps: Deps, identity: Identity, input: ListAuditInput) {
  const { sql } = deps;
  const conditions = [sql`org_id = ${identity.orgId}`];
  if (input.item_id) conditions.push(sql`item_id = ${input.item_id}`);
  if (input.cursor) conditions.push(sql`id < ${decodeIdCursor(input.cursor)}::uuid`);
  const where = conditions.reduce((all, condition) => sql`${all} and ${condition}`);
  // Sizes first, then the entries that fit the byte budget (paging.ts, withinBudget).
  const sizes = await sql<{ id: string; bytes: number }[]>`
    select id, octet_length(data::text) as bytes from audit_entries
     where ${where} order by id desc limit ${input.limit + 1}`;
  const ids = withinBudget(sizes.slice(0, input.limit), deps.env.LIST_PAGE_MAX_BYTES);
  const rows =
    ids.length === 0
      ? []
      : await sql<AuditRow[]>`
          select id, item_id, action, actor_type, actor_id, data, created_at from audit_entries
           where id = any(${ids}::uuid[]) order by id desc`;
  const last = rows[rows.length - 1];
  return {
    entries: rows.map((row) => ({ ...row, created_at: row.created_at.toISOString() })),
    next_cursor: sizes.length > ids.length && last ? encodeIdCursor(last.id) : null,
  };
}
