import { EventEmitter } from 'node:events';
import { run, type TaskList, type WorkerEvents, Logger as WorkerLogger } from 'graphile-worker';
import type { Deps } from '../deps';
import { startPushWorker } from '../push/push-worker';
import { deliverCallback } from './deliver-callback';
import { deliverWebhook } from './deliver-webhook';
import { expireItem } from './expire-item';
import { holdLiveness, sweepDeadWorkers } from './liveness';
import { pruneExpired } from './prune-expired';

/** Every task of the queue; each validates its payload and is safe to run twice. */
export function taskList(deps: Deps): TaskList {
  return {
    deliver_callback: (payload, helpers) => deliverCallback(deps, payload, helpers),
    deliver_webhook: (payload, helpers) => deliverWebhook(deps, payload, helpers),
    expire_item: (payload) => expireItem(deps, payload),
    prune_expired: async () => {
      const counts = await pruneExpired(deps.sql);
      deps.log.info({ counts }, 'pruned expired records');
    },
  };
}

const CRONTAB = '17 * * * * prune_expired';

export type WorkerHandle = { stop: () => Promise<void> };

/**
 * Starts graphile-worker on the shared database, with its logs in ours; shows itself alive and
 * keeps handing back the jobs of workers that died (see liveness.ts). The push queue's worker runs
 * alongside (push/push-worker.ts).
 */
export async function startWorker(deps: Deps, connectionString: string): Promise<WorkerHandle> {
  const log = deps.log.child({ component: 'worker' });
  const logger = new WorkerLogger(() => (level, message, meta) => {
    const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : 'debug';
    log[method](meta ?? {}, message);
  });
  const events: WorkerEvents = new EventEmitter();
  let poolId: string | undefined;
  events.on('pool:create', ({ workerPool }) => {
    poolId = workerPool.id;
  });
  const runner = await run({
    connectionString,
    events,
    concurrency: deps.env.WORKER_CONCURRENCY,
    maxPoolSize: deps.env.WORKER_CONCURRENCY + 2,
    taskList: taskList(deps),
    crontab: CRONTAB,
    logger,
    pollInterval: deps.env.WORKER_POLL_INTERVAL_MS,
    // Fetch and complete jobs in batches: far fewer round trips per job (see docs/benchmarks.md).
    // Failures are batched too: unbatched, graphile-worker 0.18 leaves a failure that cannot be
    // recorded (the database is down) as an unhandled rejection, which ends the process; batched,
    // it is retried until the database is back (patches/graphile-worker@0.18.0.patch).
    preset: {
      worker: {
        localQueue: { size: 2 * deps.env.WORKER_CONCURRENCY },
        completeJobBatchDelay: 0,
        failJobBatchDelay: 0,
      },
    },
    noHandleSignals: true,
  });
  const timeoutMs = deps.env.WORKER_LIVENESS_TIMEOUT_MS;
  const liveness = poolId ? await holdLiveness(deps.sql, connectionString, poolId, { timeoutMs }) : undefined;
  const push = await startPushWorker(deps);
  const sweeper = sweepDeadWorkers(deps.sql, {
    timeoutMs,
    intervalMs: deps.env.WORKER_SWEEP_INTERVAL_MS,
    onReleased: (pools) => log.warn({ pools }, 'released the jobs of dead workers'),
  });
  return {
    stop: async () => {
      sweeper.stop();
      await push.stop();
      await runner.stop();
      await liveness?.release();
    },
  };
}
