import { EventEmitter } from 'node:events';
import type { Sql } from '@beckon/db';
import { type Runner, type RunnerOptions, run, type WorkerEvents } from 'graphile-worker';
import type { Logger } from '../log';
import { holdLiveness, type Liveness } from './liveness';
import { trackFetches } from './orphans';

type Pool = { runner: Runner; liveness: Liveness | undefined; id: string | undefined };

export type PoolOptions = RunnerOptions & {
  connectionString: string;
  /** The liveness timeout (liveness.ts). */
  timeoutMs: number;
  /** Where the pools' events go (tests watch them); a new emitter otherwise. */
  events?: WorkerEvents;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * graphile-worker's pool, shown alive (liveness.ts), and started again when it stops by itself:
 * it gives up after about five minutes without the database (its completions cannot be
 * recorded), or on an error it cannot recover from. Its liveness goes first, so the jobs it still
 * held are handed back by the sweeps, then a new pool starts once the database lets it.
 */
export async function startSupervisedPool(sql: Sql, options: PoolOptions, log: Logger) {
  const { timeoutMs, events = new EventEmitter() as WorkerEvents, ...runOptions } = options;
  let stopping = false;
  let current: Pool | undefined;
  let restarting: Promise<void> | null = null;

  const start = async (): Promise<Pool> => {
    let id: string | undefined;
    const created = ({ workerPool }: { workerPool: { id: string } }) => {
      id ??= workerPool.id;
    };
    events.on('pool:create', created);
    let runner: Runner;
    try {
      runner = await run({ ...runOptions, events });
    } finally {
      events.off('pool:create', created);
    }
    let liveness: Liveness | undefined;
    try {
      liveness = id ? await holdLiveness(sql, options.connectionString, id, { timeoutMs }) : undefined;
    } catch (error) {
      // Not shown alive, it must not run: another start will be tried.
      await runner.stop().catch(() => {});
      throw error;
    }
    const pool: Pool = { runner, liveness, id };
    current = pool;
    void runner.promise
      .catch(() => {})
      .then(() => {
        if (!stopping && current === pool) restarting ??= restart(pool).finally(() => (restarting = null));
      });
    return pool;
  };

  const restart = async (pool: Pool) => {
    log.error({ pool: pool.id }, 'the job worker stopped by itself: starting it again');
    await pool.liveness?.release().catch(() => {});
    for (let delay = 1000; !stopping; delay = Math.min(delay * 2, 5000)) {
      try {
        await start();
        return;
      } catch (error) {
        log.warn({ err: error }, 'the job worker cannot start yet');
        await sleep(delay);
      }
    }
  };

  const fetches = trackFetches(events, () => current?.id);
  await start();
  return {
    /** The id of the pool running now. */
    poolId: () => current?.id,
    /** Hands back the jobs whose fetch the running pool never received (orphans.ts). */
    releaseLost: () => fetches.releaseLost(sql, { timeoutMs }),
    stop: async () => {
      stopping = true;
      fetches.stop();
      await restarting;
      await current?.runner.stop().catch(() => {});
      await current?.liveness?.release();
    },
  };
}
