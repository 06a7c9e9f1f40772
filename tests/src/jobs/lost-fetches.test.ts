import { EventEmitter } from 'node:events';
import { startWorker } from '@beckon/server/jobs/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, startTestServer, type TestServer } from '../harness';
import { callbackJob } from './callback-job';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({
    env: { WORKER_LIVENESS_TIMEOUT_MS: '1000', WORKER_SWEEP_INTERVAL_MS: '200' },
  });
});
afterAll(() => server?.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const queued = async (ids: string[]) =>
  (await server.database.sql`select 1 from graphile_worker._private_jobs where id = any(${ids}::bigint[])`)
    .length;

/**
 * Jobs taken a minute ago by `poolId` at an attempt it never received, as a fetch whose answer
 * was lost leaves them; `queue` puts them in a named queue, which the fetch locked too.
 */
function lostJobs(poolId: string, keys: string[], queue?: string) {
  // One transaction: the running worker, woken by the insert, must not take them first.
  return server.database.sql.begin(async (tx) => {
    const ids: string[] = [];
    for (const key of keys) {
      const [job] = await tx<{ id: string }[]>`
        select id from graphile_worker.add_job('prune_expired', '{}'::json, job_key => ${key},
                                               queue_name => ${queue ?? null})`;
      ids.push(job!.id);
    }
    const [first] = ids;
    await tx`update graphile_worker._private_jobs
                set locked_by = ${poolId}, locked_at = now() - interval '1 minute', attempts = attempts + 1
              where id = ${first!}`;
    if (queue)
      await tx`update graphile_worker._private_job_queues set locked_by = ${poolId}, locked_at = now()
                where queue_name = ${queue}`;
    return ids;
  });
}

describe('jobs a live pool took without receiving them (the answer to its fetch was lost)', () => {
  it('are handed back by the pool itself and run', async () => {
    const events = new EventEmitter() as NonNullable<Parameters<typeof startWorker>[2]>['events'] & {};
    const attemptsOfRun = new Map<string, number>();
    events.on('job:start', ({ job }) => attemptsOfRun.set(String(job.id), job.attempts));
    const worker = await startWorker(server.deps, server.database.url, { events });
    try {
      const [lost] = await lostJobs(worker.poolId('internal')!, ['lost-alone']);
      for (let i = 0; i < 100 && (await queued([lost!])); i++) await sleep(50);
      expect(await queued([lost!])).toBe(0);
      // Run once, as its first attempt: the lost one was taken back.
      expect(attemptsOfRun.get(lost!)).toBe(1);
    } finally {
      await worker.stop();
    }
  });

  it('hand back the named queue they held, so the jobs behind them run too', async () => {
    const worker = await startWorker(server.deps, server.database.url);
    try {
      const ids = await lostJobs(worker.poolId('internal')!, ['lost-first', 'lost-behind'], 'lost-queue');
      for (let i = 0; i < 100 && (await queued(ids)); i++) await sleep(50);
      expect(await queued(ids)).toBe(0);
      const [queue] = await server.database.sql<{ locked_by: string | null }[]>`
        select locked_by from graphile_worker._private_job_queues where queue_name = 'lost-queue'`;
      expect(queue?.locked_by ?? null).toBeNull();
    } finally {
      await worker.stop();
    }
  });

  it('leave alone a job the pool received, though it runs longer than the timeout: one delivery', async () => {
    const receiver = await startReceiver(undefined, { delayMs: 3000 });
    const worker = await startWorker(server.deps, server.database.url);
    try {
      const job = await callbackJob(server, receiver.url);
      await receiver.waitFor(1);
      // Held past the 1 s timeout and several 200 ms sweeps, still by the same pool.
      await sleep(2000);
      const [row] = await server.database.sql<{ locked_by: string | null; attempts: number }[]>`
        select locked_by, attempts from graphile_worker._private_jobs where key = ${job.key}`;
      expect(row).toEqual({ locked_by: worker.poolId('outbound'), attempts: 1 });
      for (let i = 0; i < 100 && (await job.pending()); i++) await sleep(50);
      expect(await job.pending()).toBe(0);
      expect(receiver.received.map((r) => r.headers['x-service-delivery'])).toEqual([job.job.delivery_id]);
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });
});
