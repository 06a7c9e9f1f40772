import { dedicatedConnection, type Sql } from '@beckon/db';
import { stalePools, wakeWorkers } from './graphile-internals';

/**
 * Which worker pools are alive, so the jobs of a dead one are handed back within a minute
 * instead of after graphile-worker's 4-hour timeout (docs/architecture.md, "Jobs").
 *
 * A live pool shows two signs, and is taken for dead only when both are missing:
 * - a session advisory lock named after its id, held on a connection of its own; PostgreSQL
 *   frees it the moment the process dies, even by kill -9. When that connection drops (a
 *   database restart, a network cut) the lock is taken again as soon as it reconnects.
 * - a heartbeat row (`worker_heartbeats`) written through the ordinary pool every quarter of
 *   the liveness timeout. It covers the moments the lock is not held although the pool lives:
 *   while the lock connection reconnects, and just after a database restart.
 *
 * A pool is dead when its lock is free, its heartbeat is older than the timeout, and the
 * database itself has been up for longer than the timeout (after an outage longer than the
 * timeout every heartbeat is stale: each pool first gets a full timeout to write a new one), and
 * its jobs were locked longer ago than the timeout (a pool that just started may hold jobs a
 * moment before its first heartbeat). After a failover to a standby (whose server has been up
 * for long), the replicated heartbeats give every pool a timeout to reconnect and beat again.
 * What remains is a pool alive but cut off from the
 * database for longer than the timeout: it cannot be told from a dead one, its jobs run again
 * elsewhere, and the deliveries it was making may arrive twice (same delivery id).
 */
const lockKey = (sql: Sql, poolId: string) => sql`hashtextextended(${`beckon-worker:${poolId}`}, 0)`;

export type LivenessOptions = { timeoutMs: number };

export type Liveness = { release: () => Promise<void> };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Holds the pool's lock (taken again after every reconnection) and writes its heartbeat. */
export async function holdLiveness(
  sql: Sql,
  url: string,
  poolId: string,
  { timeoutMs }: LivenessOptions,
): Promise<Liveness> {
  let closing = false;
  let relocking: Promise<void> | null = null;
  const connection = dedicatedConnection(url, 'beckon-worker-liveness', {
    // Called for every connection that closes, failed reconnection attempts included: one loop.
    onclose: () => {
      if (!closing) relocking ??= relock().finally(() => (relocking = null));
    },
  });
  const lock = () => connection`select pg_advisory_lock(${lockKey(connection, poolId)})`;
  const relock = async () => {
    for (let delay = 100; !closing; delay = Math.min(delay * 2, 2000)) {
      try {
        await lock();
        return;
      } catch {
        await sleep(delay);
      }
    }
  };
  const beat = () =>
    sql`insert into worker_heartbeats (pool_id) values (${poolId})
        on conflict (pool_id) do update set seen_at = now()`.catch(() => {});
  try {
    await beat();
    await lock();
  } catch (error) {
    closing = true;
    await connection.end({ timeout: 0 });
    throw error;
  }
  const heartbeat = setInterval(beat, Math.max(50, Math.floor(timeoutMs / 4)));
  return {
    release: async () => {
      closing = true;
      clearInterval(heartbeat);
      await sql`delete from worker_heartbeats where pool_id = ${poolId}`.catch(() => {});
      await connection.end({ timeout: 1 });
    },
  };
}

/** Unlocks the jobs of every dead pool (see above) and wakes the workers; returns their ids. */
export async function unlockDeadWorkers(sql: Sql, { timeoutMs }: LivenessOptions): Promise<string[]> {
  const timeout = `${timeoutMs} milliseconds`;
  const pools = await stalePools(sql, timeout);
  const dead: string[] = [];
  if (pools.length === 0) return dead;
  const probe = await sql.reserve();
  try {
    for (const { locked_by: poolId } of pools) {
      const [row] = await probe<{ free: boolean }[]>`
        select pg_try_advisory_lock(${lockKey(sql, poolId)}) as free`;
      if (!row?.free) continue;
      try {
        await probe`select graphile_worker.force_unlock_workers(${[poolId]}::text[])`;
        await probe`delete from worker_heartbeats where pool_id = ${poolId}`;
      } finally {
        await probe`select pg_advisory_unlock(${lockKey(sql, poolId)})`;
      }
      dead.push(poolId);
    }
    // Workers take the released jobs at once rather than at their next poll.
    if (dead.length) await wakeWorkers(probe);
  } finally {
    probe.release();
  }
  return dead;
}

/**
 * Sweeps for dead pools now and then every `intervalMs` (with jitter, so pools that started
 * together do not sweep together). A dead pool's jobs are released at most timeout + interval
 * after it died, by whichever pool is alive then (or by the next to start).
 */
export function sweepDeadWorkers(
  sql: Sql,
  options: LivenessOptions & {
    intervalMs: number;
    onReleased: (pools: string[]) => void;
    /** Run with each sweep: the sweeping pool's own lost jobs (orphans.ts). */
    alongside?: () => Promise<void>;
  },
): { stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const sweep = async () => {
    const dead = await unlockDeadWorkers(sql, options).catch(() => []);
    if (dead.length) options.onReleased(dead);
    await options.alongside?.().catch(() => {});
    // Old rows of pools that stopped without a word and held no job.
    await sql`delete from worker_heartbeats where seen_at < now() - interval '1 hour'`.catch(() => {});
    if (!stopped) timer = setTimeout(sweep, options.intervalMs * (0.8 + Math.random() * 0.2));
  };
  void sweep();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
