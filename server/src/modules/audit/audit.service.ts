import { createHash } from 'node:crypto';
import type { AuditEntryView, ListAuditInput } from '@beckon/contracts/audit/audit.contract';
import { auditContent } from '@beckon/contracts/proofs/audit-chain';
import { canonicalize } from '@beckon/contracts/proofs/jcs';
import type { Queryable } from '@beckon/db';
import { uuidv7 } from 'uuidv7';
import { type Actor, actorOf, type Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { markWritten } from '../../realtime/sequencer';
import { type Part, part, statementOf } from '../../statement-parts';
import { decodeIdCursor, encodeIdCursor, withinBudget } from '../paging';

export type AuditEntry = {
  orgId: string;
  /** The item it concerns, if any. */
  itemId?: string;
  action: string;
  actor: Actor;
  data: Record<string, unknown>;
};

/**
 * The one INSERT of an audit entry, as a part (`audit`) of a statement of its own or of a
 * caller's (an item change: record-change.ts). The content digest is taken here (JCS, as every
 * verifier takes it) and stored with the entry; the entry joins its organization's chain once it
 * has committed, when the sequencer links it (realtime/sequencer.ts), so concurrent writers of
 * one organization do not wait for each other's commits.
 */
export function auditParts(sql: Queryable, entry: AuditEntry): Part[] {
  markWritten(entry.orgId);
  const id = uuidv7();
  // Milliseconds, as the API shows created_at: the digest covers exactly what is stored.
  const createdAt = new Date();
  const content = contentDigest({
    id,
    org_id: entry.orgId,
    item_id: entry.itemId ?? null,
    action: entry.action,
    actor_type: entry.actor.type,
    actor_id: entry.actor.id,
    // As stored: jsonb keeps what JSON keeps (no undefined, dates as strings).
    data: JSON.parse(JSON.stringify(entry.data)),
    created_at: createdAt.toISOString(),
  });
  const audit = sql`
      insert into audit_entries (id, org_id, item_id, action, actor_type, actor_id, data, created_at,
                                 content_hash)
      values (${id}, ${entry.orgId}, ${entry.itemId ?? null}, ${entry.action}, ${entry.actor.type},
              ${entry.actor.id}, ${sql.json(entry.data as never)}, ${createdAt}, ${content})
      returning id`;
  return [part('audit', audit)];
}

/** contentDigest (contracts/src/proofs/audit-chain.ts), synchronously. */
const contentDigest = (entry: Parameters<typeof auditContent>[0]) =>
  createHash('sha256')
    .update(canonicalize(auditContent(entry)))
    .digest('hex');

/** An audit entry without an item (sign-ins, credentials, organization changes), in `tx`. */
export async function recordAudit(tx: Queryable, entry: AuditEntry): Promise<void> {
  await statementOf(tx, auditParts(tx, entry));
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
           where org_id = ${identity.orgId} and id = any(${ids}::uuid[]) order by id desc`;
  const last = rows[rows.length - 1];
  return {
    entries: rows.map((row) => ({ ...row, created_at: row.created_at.toISOString() })),
    next_cursor: sizes.length > ids.length && last ? encodeIdCursor(last.id) : null,
  };
}
