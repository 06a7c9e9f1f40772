import type { Sql } from '@beckon/db';
import postgres from 'postgres';

/**
 * A live worker pool holds a session advisory lock named after its id for as long as its process
 * lives; PostgreSQL releases it when the process dies, even by kill -9. So a pool whose lock is
 * free is dead, and the jobs it had locked can be handed back at once instead of after
 * graphile-worker's 4-hour timeout.
 */
const lockKey = (sql: Sql, poolId: string) => sql`hashtextextended(${`beckon-worker:${poolId}`}, 0)`;

/** Jobs locked at least this long ago are candidates (a pool takes its lock right after it starts). */
const GRACE = '30 seconds';

export async function holdLiveness(url: string, poolId: string): Promise<{ release: () => Promise<void> }> {
  const connection = postgres(url, {
    max: 1,
    idle_timeout: 0,
    max_lifetime: null,
    onnotice: () => {},
    connection: { application_name: 'beckon-worker-liveness' },
  });
  await connection`select pg_advisory_lock(${lockKey(connection, poolId)})`;
  return { release: () => connection.end({ timeout: 1 }) };
}

/** Unlocks the jobs of every dead pool; returns their ids. */
export async function unlockDeadWorkers(sql: Sql): Promise<string[]> {
  const pools = await sql<{ locked_by: string }[]>`
    select distinct locked_by from graphile_worker._private_jobs
     where locked_by is not null and locked_at < now() - ${GRACE}::interval`;
  const dead: string[] = [];
  const probe = await sql.reserve();
  try {
    for (const { locked_by: poolId } of pools) {
      const [row] = await probe<
        { free: boolean }[]
      >`select pg_try_advisory_lock(${lockKey(sql, poolId)}) as free`;
      if (!row?.free) continue;
      await probe`select graphile_worker.force_unlock_workers(${[poolId]}::text[])`;
      await probe`select pg_advisory_unlock(${lockKey(sql, poolId)})`;
      dead.push(poolId);
    }
  } finally {
    probe.release();
  }
  return dead;
}
