import { integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { ts } from './columns';

/**
 * Request counts per rate-limit key and fixed window, shared by every process of a deployment
 * (server/src/rate-limit). UNLOGGED in the migration: counters need no crash safety or replica,
 * and skipping the WAL keeps their upserts cheap. Rows past `window_end` are pruned hourly.
 */
export const rateLimitCounters = pgTable(
  'rate_limit_counters',
  {
    /** `<policy>:<subject>`, e.g. `api:cred:<credential id>` or `sign_in:ip:203.0.113.7`. */
    key: text('key').notNull(),
    windowStart: ts('window_start').notNull(),
    windowEnd: ts('window_end').notNull(),
    hits: integer('hits').notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] })],
);
