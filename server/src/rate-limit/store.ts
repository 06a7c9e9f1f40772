import type { Sql } from '@beckon/db';

export type Hits = { key: string; start: number; end: number; hits: number };

/**
 * Adds hits to the shared counters (one statement for any number of keys) and answers each
 * key's total for its window, every process's hits included. Keys must be unique per call.
 */
export async function addHits(sql: Sql, rows: readonly Hits[]): Promise<Map<string, number>> {
  if (rows.length === 0) return new Map();
  const iso = (ms: number) => new Date(ms).toISOString();
  const totals = await sql<{ key: string; hits: number }[]>`
    insert into rate_limit_counters as c (key, window_start, window_end, hits)
    select * from unnest(${rows.map((r) => r.key)}::text[], ${rows.map((r) => iso(r.start))}::timestamptz[],
                         ${rows.map((r) => iso(r.end))}::timestamptz[], ${rows.map((r) => r.hits)}::int[])
    on conflict (key, window_start) do update set hits = c.hits + excluded.hits
    returning key, hits`;
  return new Map(totals.map((row) => [row.key, row.hits]));
}
