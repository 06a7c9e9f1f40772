import type { Sql } from '@beckon/db';

/**
 * The statements of retention and deletion, each removing at most `limit` rows of one
 * organization in its own short transaction (a statement outside `begin` commits alone): no lock
 * outlives a batch, and a run stopped half-way resumes where it stopped.
 */
export type Batch = (limit: number) => Promise<number>;

/** Runs `batch` until it removes fewer rows than its limit; the rows removed in all. */
export async function inBatches(limit: number, batch: Batch): Promise<number> {
  let total = 0;
  for (;;) {
    const removed = await batch(limit);
    total += removed;
    if (removed < limit) return total;
  }
}

const counted = async (query: Promise<{ n: number }[]>) => (await query)[0]?.n ?? 0;

/**
 * Items created before `before` that are no longer open. Their comments, attachments (whose
 * files the attachments trigger queues in blob_deletions) and deliveries go with them; their
 * audit entries stay, chained, until the audit's own period.
 */
export const oldItems =
  (sql: Sql, orgId: string, before: Date): Batch =>
  (limit) =>
    counted(sql`
      with doomed as (
        select id from items where org_id = ${orgId} and created_at < ${before} and status <> 'open'
         order by created_at limit ${limit}),
      gone as (delete from items i using doomed d where i.org_id = ${orgId} and i.id = d.id returning 1)
      select count(*)::int as n from gone`);

/** Items archived before `before`. */
export const archivedItems =
  (sql: Sql, orgId: string, before: Date): Batch =>
  (limit) =>
    counted(sql`
      with doomed as (
        select id from items
         where org_id = ${orgId} and status = 'archived' and archived_at < ${before} limit ${limit}),
      gone as (delete from items i using doomed d where i.org_id = ${orgId} and i.id = d.id returning 1)
      select count(*)::int as n from gone`);

/** Comments, or attachments, written before `before`. */
export const oldRows =
  (sql: Sql, table: 'comments' | 'attachments', orgId: string, before: Date): Batch =>
  (limit) =>
    counted(sql`
      with doomed as (
        select id from ${sql(table)} where org_id = ${orgId} and created_at < ${before}
         order by created_at limit ${limit}),
      gone as (delete from ${sql(table)} t using doomed d where t.org_id = ${orgId} and t.id = d.id returning 1)
      select count(*)::int as n from gone`);

/**
 * The start of the organization's audit chain up to the last entry written before `before`,
 * `limit` entries at a time from the anchor on. The last entry removed becomes the anchor in the
 * same statement, so what remains verifies from it (contracts/src/proofs/audit-chain.ts), while
 * an entry removed by anyone else still shows as a gap.
 */
export const oldAuditEntries =
  (sql: Sql, orgId: string, before: Date): Batch =>
  (limit) =>
    counted(sql`
      with head as (select anchor_seq from audit_heads where org_id = ${orgId}),
      first as (
        select a.seq, a.created_at from audit_entries a, head
         where a.org_id = ${orgId} and a.seq > head.anchor_seq order by a.seq limit ${limit}),
      cut as (select max(seq) as seq from first where created_at < ${before}),
      gone as (
        delete from audit_entries a
         where a.org_id = ${orgId} and a.seq > (select anchor_seq from head)
           and a.seq <= (select seq from cut)
        returning a.seq, a.hash),
      last as (select seq, hash from gone order by seq desc limit 1),
      anchored as (
        update audit_heads h set anchor_seq = l.seq, anchor_hash = l.hash
          from last l where h.org_id = ${orgId} and l.seq > h.anchor_seq)
      select count(*)::int as n from gone`);

/** Entries written before the chain existed (no seq, no content digest), by their date alone. */
export const unchainedAuditEntries =
  (sql: Sql, orgId: string, before: Date): Batch =>
  (limit) =>
    counted(sql`
      with doomed as (
        select id from audit_entries
         where org_id = ${orgId} and seq is null and content_hash is null and created_at < ${before}
         limit ${limit}),
      gone as (delete from audit_entries a using doomed d where a.org_id = ${orgId} and a.id = d.id returning 1)
      select count(*)::int as n from gone`);
