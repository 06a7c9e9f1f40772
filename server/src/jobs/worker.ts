import { type Runner, run, type TaskList, Logger as WorkerLogger } from 'graphile-worker';
import type { Deps } from '../deps';
import { deliverCallback } from './deliver-callback';
import { expireItem } from './expire-item';
import { pruneExpired } from './prune-expired';

/** Every task of the queue; each validates its payload and is safe to run twice. */
export function taskList(deps: Deps): TaskList {
  return {
    deliver_callback: (payload) => deliverCallback(deps, payload),
    expire_item: (payload) => expireItem(deps, payload),
    prune_expired: async () => {
      const counts = await pruneExpired(deps.sql);
      deps.log.info({ counts }, 'pruned expired records');
    },
  };
}

const CRONTAB = '17 * * * * prune_expired';

/** Starts graphile-worker on the shared database, with its logs in ours. */
export function startWorker(deps: Deps, connectionString: string): Promise<Runner> {
  const log = deps.log.child({ component: 'worker' });
  const logger = new WorkerLogger(() => (level, message, meta) => {
    const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : 'debug';
    log[method](meta ?? {}, message);
  });
  return run({
    connectionString,
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
}
