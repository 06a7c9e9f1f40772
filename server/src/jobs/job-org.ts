import type { Queryable } from '@beckon/db';

/** The row a payload names, for the tasks whose payload gained `org_id`: its table and key. */
const NAMED_ROW = {
  deliver_webhook: { table: 'webhooks', key: 'webhook_id' },
  deliver_push: { table: 'push_queue', key: 'entry_id' },
  expire_item: { table: 'items', key: 'item_id' },
  escalate_item: { table: 'items', key: 'item_id' },
  repeat_item: { table: 'items', key: 'item_id' },
} as const;

/**
 * A payload with its `org_id`. Every producer puts it there (job-tasks.ts requires it); a job
 * queued by an older version has none, so its organization is read once from the row the payload
 * names (the job's lookups then filter on it like any other). Null when that row is gone: the job
 * has nothing left to do. The lookup is one of the cross-organization statements listed in
 * db/src/cross-org-statements.ts; it can go once no queue holds a job without `org_id`.
 */
export async function withJobOrg(
  sql: Queryable,
  task: keyof typeof NAMED_ROW,
  payload: unknown,
): Promise<unknown> {
  if (typeof payload !== 'object' || payload === null || 'org_id' in payload) return payload;
  const { table, key } = NAMED_ROW[task];
  const id = (payload as Record<string, unknown>)[key];
  if (typeof id !== 'string') return payload;
  const [row] = await sql<{ org_id: string }[]>`
    select org_id from ${sql(table)} where id = ${id}::uuid`;
  return row ? { ...payload, org_id: row.org_id } : null;
}
