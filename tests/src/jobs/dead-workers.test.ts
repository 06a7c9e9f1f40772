import { EventEmitter } from 'node:events';
import { hashToken } from '@beckon/server/auth/tokens';
import { unlockDeadWorkers } from '@beckon/server/jobs/liveness';
import { startWorker } from '@beckon/server/jobs/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, startTestServer, type TestServer } from '../harness';
import { callbackJob } from './callback-job';

let server: TestServer;

// Short liveness figures, so the test database (started moments ago) has been up long enough.
const liveness = { timeoutMs: 1000 };

beforeAll(async () => {
  server = await startTestServer({
    env: { WORKER_LIVENESS_TIMEOUT_MS: '1000', WORKER_SWEEP_INTERVAL_MS: '200' },
  });
});
afterAll(() => server?.close());

/** A job locked a minute ago by `poolId`, as a worker that was then killed would leave it. */
async function lockedJob(poolId: string) {
  // One transaction: a running worker, woken by the insert, must not take the job before it is locked.
  return server.database.sql.begin(async (tx) => {
    const [job] = await tx<{ id: string }[]>`
      select id from graphile_worker.add_job('prune_expired', '{}'::json, job_key => ${hashToken(poolId)})`;
    await tx`update graphile_worker._private_jobs set locked_by = ${poolId}, locked_at = now() - interval '1 minute'
              where id = ${job!.id}`;
    return job!.id;
  });
}

const lockedBy = async (id: string) =>
  (
    await server.database.sql<{ locked_by: string | null }[]>`
    select locked_by from graphile_worker._private_jobs where id = ${id}`
  )[0]?.locked_by;

describe('jobs of dead workers', () => {
  it('are unlocked, while those of a live worker stay locked', async () => {
    const sql = server.database.sql;
    const dead = await lockedJob('pool-dead');
    const alive = await lockedJob('pool-alive');
    // A live pool holds its liveness lock on a session of its own.
    const session = await sql.reserve();
    await session`select pg_advisory_lock(hashtextextended(${'beckon-worker:pool-alive'}, 0))`;
    try {
      expect(await unlockDeadWorkers(sql, liveness)).toEqual(['pool-dead']);
      expect(await lockedBy(dead)).toBeNull();
      expect(await lockedBy(alive)).toBe('pool-alive');
    } finally {
      await session`select pg_advisory_unlock_all()`;
      session.release();
    }
  });

  it('leaves recently locked jobs alone (a pool takes its lock just after it starts)', async () => {
    const [job] = await server.database.sql<{ id: string }[]>`
      select id from graphile_worker.add_job('prune_expired', '{}'::json, job_key => 'fresh')`;
    await server.database
      .sql`update graphile_worker._private_jobs set locked_by = 'pool-new', locked_at = now()
                               where id = ${job!.id}`;
    expect(await unlockDeadWorkers(server.database.sql, liveness)).not.toContain('pool-new');
    expect(await lockedBy(job!.id)).toBe('pool-new');
  });

  it("stay locked while their pool's heartbeat is fresh, even with its lock free (reconnecting)", async () => {
    const sql = server.database.sql;
    const job = await lockedJob('pool-reconnecting');
    await sql`insert into worker_heartbeats (pool_id) values ('pool-reconnecting')`;
    expect(await unlockDeadWorkers(sql, liveness)).not.toContain('pool-reconnecting');
    expect(await lockedBy(job)).toBe('pool-reconnecting');
    await sql`update worker_heartbeats set seen_at = now() - interval '1 minute' where pool_id = 'pool-reconnecting'`;
    expect(await unlockDeadWorkers(sql, liveness)).toEqual(['pool-reconnecting']);
    expect(await lockedBy(job)).toBeNull();
    expect(await sql`select 1 from worker_heartbeats where pool_id = 'pool-reconnecting'`).toHaveLength(0);
  });

  it('are run by the next worker that starts, which holds its own liveness lock', async () => {
    const sql = server.database.sql;
    const orphan = await lockedJob('pool-killed');
    const worker = await startWorker(server.deps, server.database.url);
    try {
      for (
        let i = 0;
        i < 100 && (await sql`select 1 from graphile_worker._private_jobs where id = ${orphan}`).length;
        i++
      ) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await sql`select 1 from graphile_worker._private_jobs where id = ${orphan}`).toHaveLength(0);
      const held = await sql`
        select 1 from pg_locks l join pg_stat_activity a on a.pid = l.pid
         where l.locktype = 'advisory' and a.application_name = 'beckon-worker-liveness'
           and a.datname = current_database()`;
      // One for each of its two pools (internal jobs, deliveries).
      expect(held).toHaveLength(2);
    } finally {
      await worker.stop();
    }
  });

  it('are released by a worker that was already running (the sweep repeats)', async () => {
    const worker = await startWorker(server.deps, server.database.url);
    try {
      // Died after the running worker's first sweep.
      await new Promise((r) => setTimeout(r, 300));
      const orphan = await lockedJob('pool-died-later');
      for (let i = 0; i < 100 && (await lockedBy(orphan)) === 'pool-died-later'; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await lockedBy(orphan)).not.toBe('pool-died-later');
    } finally {
      await worker.stop();
    }
  });
});

describe('a worker pool that stops by itself (it gives up after minutes without the database)', () => {
  it('is started again, and the jobs it held are handed back', async () => {
    const sql = server.database.sql;
    const events = new EventEmitter() as NonNullable<Parameters<typeof startWorker>[2]>['events'] & {};
    const pools: Array<{ id: string; gracefulShutdown: (reason?: string) => unknown }> = [];
    events.on('pool:create', ({ workerPool }) => pools.push(workerPool));
    const worker = await startWorker(server.deps, server.database.url, { events });
    try {
      const first = worker.poolId('internal');
      const pool = pools.find((p) => p.id === first);
      expect(pool).toBeDefined();
      // Left locked by the pool, as a pool that gave up while the database was away leaves them.
      const held = await lockedJob(first!);
      await pool!.gracefulShutdown('test: the pool gives up');
      for (let i = 0; i < 200 && worker.poolId('internal') === first; i++)
        await new Promise((r) => setTimeout(r, 25));
      const second = worker.poolId('internal');
      expect(second).toBeDefined();
      expect(second).not.toBe(first);
      expect(await sql`select 1 from worker_heartbeats where pool_id = ${first!}`).toHaveLength(0);
      expect(await sql`select 1 from worker_heartbeats where pool_id = ${second!}`).toHaveLength(1);
      // The old pool's job is handed back by a sweep and run by the new pool.
      for (
        let i = 0;
        i < 200 && (await sql`select 1 from graphile_worker._private_jobs where id = ${held}`).length;
        i++
      ) {
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(await sql`select 1 from graphile_worker._private_jobs where id = ${held}`).toHaveLength(0);
    } finally {
      await worker.stop();
    }
  });
});

describe('a live worker whose liveness connection drops', () => {
  const holders = () => server.database.sql<{ pid: number }[]>`
    select a.pid from pg_locks l join pg_stat_activity a on a.pid = l.pid
     where l.locktype = 'advisory' and l.granted and a.application_name = 'beckon-worker-liveness'
       and a.datname = current_database()`;

  it('takes its lock again on a new connection and keeps its jobs', async () => {
    const sql = server.database.sql;
    // A callback whose receiver answers after 3 s: the pool holds the job that long.
    const receiver = await startReceiver(undefined, { delayMs: 3000 });
    const worker = await startWorker(server.deps, server.database.url);
    try {
      const before = (await holders()).map((h) => h.pid);
      expect(before).toHaveLength(2);
      const poolId = worker.poolId('outbound');
      const job = await callbackJob(server, receiver.url);
      await receiver.waitFor(1);
      const id = await job.id();
      expect(await lockedBy(id!)).toBe(poolId);
      await sql`select pg_terminate_backend(pid) from unnest(${before}::int[]) as pid`;
      let after: number[] = [];
      for (let i = 0; i < 100; i++) {
        after = (await holders()).map((h) => h.pid);
        if (after.length === 2 && after.every((pid) => !before.includes(pid))) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(after).toHaveLength(2);
      expect(after.filter((pid) => before.includes(pid))).toEqual([]);
      // Alive: neither its own sweeps nor another's hand its jobs back.
      expect(await unlockDeadWorkers(sql, liveness)).not.toContain(poolId);
      expect(await lockedBy(id!)).toBe(poolId);
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });
});

describe('a callback job whose worker died mid-run', () => {
  /**
   * A deliver_callback job enqueued as the application enqueues it, then taken by a pool that
   * died: graphile-worker counts an attempt when it takes a job.
   */
  async function orphanedCallback(url: string) {
    const { job, key, pending } = await callbackJob(server, url);
    const poolId = `pool-${job.delivery_id}`;
    await server.database.sql`update graphile_worker._private_jobs
                 set locked_by = ${poolId}, locked_at = now() - interval '1 minute', attempts = attempts + 1
               where key = ${key}`;
    return { job, pending };
  }

  /** Starts a worker (which hands back dead pools' jobs) and waits until the job is done. */
  async function runUntilDone(pending: () => Promise<number>) {
    const worker = await startWorker(server.deps, server.database.url);
    try {
      for (let i = 0; i < 100 && (await pending()); i++) await new Promise((r) => setTimeout(r, 50));
      expect(await pending()).toBe(0);
    } finally {
      await worker.stop();
    }
  }

  it('is delivered by the next worker', async () => {
    const receiver = await startReceiver();
    try {
      const { job, pending } = await orphanedCallback(receiver.url);
      await runUntilDone(pending);
      expect(receiver.received.map((r) => r.headers['x-service-delivery'])).toEqual([job.delivery_id]);
    } finally {
      await receiver.close();
    }
  });

  it('is not delivered twice when its attempt was already recorded', async () => {
    const receiver = await startReceiver();
    try {
      const { job, pending } = await orphanedCallback(receiver.url);
      await server.database.sql`
        insert into delivery_attempts (org_id, delivery_id, kind, item_id, event, url, attempt, status_code)
        values (${job.org_id}, ${job.delivery_id}, 'callback', ${job.item_id}, ${job.event}, ${job.url}, 1, 200)`;
      await runUntilDone(pending);
      expect(receiver.received).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});
