import type { Sql } from '@beckon/db';

// Beckon's hooks into graphile-worker beyond its documented API, kept here for the liveness sweep
// (liveness.ts) and the release of lost fetches (orphans.ts): its private jobs and queues tables
// (who holds which job since when) and the notification channel its workers listen on for new jobs.
// The guard test beside this file fails naming the one an upgrade changed; the patch is listed in
// patches/README.md.

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

/** The jobs `poolId` holds, each with its attempt count and whether it was taken before `grace`. */
export const jobsHeldBy = (sql: Sql, poolId: string, grace: string) => sql<
  { id: string; attempts: number; old: boolean }[]
>`
  select id::text, attempts, locked_at < now() - ${grace}::interval as old
    from graphile_worker._private_jobs where locked_by = ${poolId}`;

/**
 * Hands back jobs of `poolId`, each only at the attempt given (a job taken again since is left
 * alone), as not attempted (as graphile-worker returns the jobs of its local queue), with the
 * named queues it held for them, and wakes the workers.
 */
export const unlockJobs = (sql: Sql, poolId: string, jobs: { id: string; attempts: number }[]) => sql`
  with released as (
    update graphile_worker._private_jobs
       set locked_by = null, locked_at = null, attempts = greatest(0, attempts - 1)
     where locked_by = ${poolId}
       and (id, attempts) in (select * from unnest(${jobs.map((j) => j.id)}::bigint[], ${jobs.map((j) => j.attempts)}::int[]))
    returning job_queue_id),
  queues as (
    update graphile_worker._private_job_queues set locked_by = null, locked_at = null
     where locked_by = ${poolId} and id in (select job_queue_id from released)
    returning 1)
  select pg_notify('jobs:insert', ${JSON.stringify({ count: 100 })}),
         (select count(*) from released)::int as released`;
