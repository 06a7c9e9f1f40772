import type { Deps } from '../../deps';

/**
 * Removes the stored files of deleted attachments (queued in blob_deletions by the attachments
 * trigger, in the transaction that deleted them), `limit` at a time. A file is removed before its
 * queue row, so a crash in between only removes it again (removing a missing file is no error).
 */
export async function sweepBlobDeletions(deps: Pick<Deps, 'sql' | 'storage'>, limit: number) {
  let removed = 0;
  for (;;) {
    const rows = await deps.sql<{ storage_key: string }[]>`
      select storage_key from blob_deletions order by created_at limit ${limit}`;
    for (const row of rows) await deps.storage.delete(row.storage_key);
    if (rows.length > 0) {
      await deps.sql`delete from blob_deletions where storage_key = any(${rows.map((r) => r.storage_key)})`;
    }
    removed += rows.length;
    if (rows.length < limit) return removed;
  }
}
