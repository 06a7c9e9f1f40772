import { EventEmitter } from 'node:events';
import { run, type TaskList, type WorkerEvents, Logger as WorkerLogger } from 'graphile-worker';
import type { Deps } from '../deps';
import { startPushWorker } from '../push/push-worker';
import { deliverCallback } from './deliver-callback';
import { deliverWebhook } from './deliver-webhook';
import { expireItem } from './expire-item';
import { holdLiveness, unlockDeadWorkers } from './liveness';
import { pruneExpired } from './prune-expired';

/** Every task of the queue; each validates its payload and is safe to run twice. */
export function taskList(deps: Deps): TaskList {
  return {
    deliver_callback: (payload, helpers) => deliverCallback(deps, payload, helpers),
    deliver_webhook: (payload, helpers) => deliverWebhook(deps, payload, helpers),
    expire_item: (payload) => expireItem(deps, payload),
    prune_expired: async () => {
      const counts = await pruneExpired(deps.sql, {
        unusedClientHours: deps.env.OAUTH_CLIENT_UNUSED_HOURS,
      });
      deps.log.info({ counts }, 'pruned expired records');
    },
  };
}

const CRONTAB = '17 * * * * prune_expired';

export type WorkerHandle = { stop: () => Promise<void> };

/**
 * Starts graphile-worker on the shared database, with its logs in ours; announces itself alive
 * and hands back the jobs of workers that died (see liveness.ts). The push queue's worker runs
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
    preset: { worker: { localQueue: { size: 2 * deps.env.WORKER_CONCURRENCY }, completeJobBatchDelay: 0 } },
    noHandleSignals: true,
  });
  const liveness = poolId ? await holdLiveness(connectionString, poolId) : undefined;
  const push = await startPushWorker(deps);
  const dead = await unlockDeadWorkers(deps.sql);
  if (dead.length) log.warn({ pools: dead }, 'released the jobs of dead workers');
  return {
    stop: async () => {
      await push.stop();
      await runner.stop();
      await liveness?.release();
    },
  };
}
