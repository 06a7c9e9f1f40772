import type { Sql } from '@beckon/db';
import type { Job, WorkerEvents } from 'graphile-worker';
import { jobsHeldBy, unlockJobs } from './graphile-internals';

/**
 * Jobs a live pool holds without knowing it. A fetch of jobs can commit in the database (and, on
 * a failover, on the standby that takes over) while its answer is lost with the connection;
 * graphile-worker retries the fetch and takes other jobs, and the first ones stay locked by a pool
 * that is alive, so the liveness sweep (liveness.ts) never frees them and graphile-worker's own
 * timeout is 4 hours.
 *
 * Every fetch raises each job's attempt count, so the pool knows a job it received by its id and
 * attempt. A job its pool has held for longer than the liveness timeout, at an attempt the pool
 * never received, was lost on the way: it is handed back (at that attempt only, which is taken
 * back) and runs again.
 * A job the pool did receive stays locked until graphile-worker records its end, however long the
 * database keeps that from happening.
 */
export function trackFetches(events: WorkerEvents, poolId: () => string | undefined) {
  // What the pools received, by `id:attempts` (one fetch each), with when; forgotten once the
  // running pool no longer holds it. A pool fetches before its id is known here: all are kept.
  const received = new Map<string, number>();
  const onFetched = ({ jobs }: { jobs: Job[] }) => {
    const now = Date.now();
    for (const job of jobs) received.set(`${job.id}:${job.attempts}`, now);
  };
  events.on('localQueue:getJobs:complete', onFetched);
  return {
    /** Hands back the pool's lost jobs; returns how many. */
    releaseLost: async (sql: Sql, { timeoutMs }: { timeoutMs: number }) => {
      const id = poolId();
      if (!id) return 0;
      const asked = Date.now();
      const held = await jobsHeldBy(sql, id, `${timeoutMs} milliseconds`);
      const keys = new Set(held.map((job) => `${job.id}:${job.attempts}`));
      for (const [key, at] of received) if (at < asked && !keys.has(key)) received.delete(key);
      const lost = held.filter((job) => job.old && !received.has(`${job.id}:${job.attempts}`));
      if (lost.length === 0) return 0;
      const [row] = await unlockJobs(sql, id, lost);
      return Number(row?.released ?? 0);
    },
    stop: () => events.off('localQueue:getJobs:complete', onFetched),
  };
}
