import type { Sql } from '@beckon/db';

// Beckon's hooks into graphile-worker beyond its documented API, kept here for the liveness sweep
// (liveness.ts): its private jobs table (who holds which job since when) and the notification
// channel its workers listen on for new jobs. The guard test beside this file fails naming the
// one an upgrade changed; the patch is listed in patches/README.md.

/**
 * The pools holding jobs locked for longer than `timeout` whose heartbeat (worker_heartbeats) is
 * as old or missing, on a server that has been up for longer than `timeout`.
 */
export const stalePools = (sql: Sql, timeout: string) => sql<{ locked_by: string }[]>`
  select distinct j.locked_by from graphile_worker._private_jobs j
    left join worker_heartbeats h on h.pool_id = j.locked_by
   where j.locked_by is not null and j.locked_at < now() - ${timeout}::interval
     and (h.seen_at is null or h.seen_at < now() - ${timeout}::interval)
     and pg_postmaster_start_time() < now() - ${timeout}::interval`;

/** Wakes every worker to fetch jobs now rather than at its next poll. */
export const wakeWorkers = (sql: Sql) =>
  sql`select pg_notify('jobs:insert', ${JSON.stringify({ count: 100 })})`;
