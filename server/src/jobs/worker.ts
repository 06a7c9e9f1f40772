import {
  type RunnerOptions,
  type Task,
  type TaskList,
  type WorkerEvents,
  Logger as WorkerLogger,
} from 'graphile-worker';
import type { Deps } from '../deps';
import type { Env } from '../env';
import type { TaskName } from '../job-tasks';
import { checkpointOrganizations } from '../modules/audit/audit-checkpoints';
import * as discord from '../modules/discord/deliver-discord';
import { escalateItem } from '../modules/items/changes/escalate-item';
import { repeatItem } from '../modules/items/changes/repeat-item';
import { deliverPushTask } from '../modules/push/deliver-push';
import { applyRetention } from '../modules/retention/apply-retention';
import { deleteOrganization } from '../modules/retention/org-deletion';
import { postItemTask, updateItemTask } from '../modules/slack/deliver-slack';
import * as teams from '../modules/teams/deliver-teams';
import * as telegram from '../modules/telegram/deliver-telegram';
import { closeItemTask, sendItemTask } from '../modules/twilio/deliver-twilio';
import { sequencedAfter } from '../realtime/sequencer';
import { requestContext } from '../request-context';
import { inJobSpan } from '../tracing/job-spans';
import { deliverCallback } from './deliver-callback';
import { deliverWebhook } from './deliver-webhook';
import { expireItem } from './expire-item';
import { sweepDeadWorkers } from './liveness';
import { pruneExpired } from './prune-expired';
import { sendEmail } from './send-email';
import { sendEmailDigest } from './send-email-digest';
import { startSupervisedPool } from './worker-pool';

/**
 * Runs a task in the context of the request that enqueued its job (job-queue.ts): its log lines
 * and outbound requests carry that request's id, and when tracing, the run is a span continuing
 * that request's trace (job-spans.ts). The task sees its payload without them. Once it has run,
 * the events and audit entries it wrote are put in their organizations' order (sequencer.ts).
 */
function inRequestContext(deps: Deps, name: string, task: Task): Task {
  const spanned = inJobSpan(name, task);
  const traced: Task = (payload, helpers) =>
    sequencedAfter(
      deps.sequencer,
      async () => spanned(payload, helpers),
      (err) => helpers.logger.warn(`sequencing after ${name} failed, the sweep will do it: ${err}`),
    );
  return (payload, helpers) => {
    if (
      typeof payload !== 'object' ||
      payload === null ||
      !('request_id' in payload || 'traceparent' in payload)
    )
      return traced(payload, helpers);
    const { request_id: requestId, ...rest } = payload as { request_id?: unknown };
    if (typeof requestId !== 'string') return traced(rest, helpers);
    return requestContext.run({ requestId }, () => traced(rest, helpers));
  };
}

/** Every task of the queue; each validates its payload and is safe to run twice. */
export function taskList(deps: Deps): TaskList {
  const list: TaskList = {};
  // Each handler parses its payload with its JOB_TASKS entry: the wrapper hands on what it received.
  for (const [name, task] of Object.entries(tasks(deps)))
    if (task) list[name] = inRequestContext(deps, name, task as Task);
  return list;
}

function tasks(deps: Deps): TaskList {
  return {
    deliver_callback: (payload, helpers) => deliverCallback(deps, payload, helpers),
    deliver_webhook: (payload, helpers) => deliverWebhook(deps, payload, helpers),
    deliver_push: deliverPushTask(deps),
    slack_post_item: postItemTask(deps),
    slack_update_item: updateItemTask(deps),
    telegram_post_item: telegram.postItemTask(deps),
    telegram_update_item: telegram.updateItemTask(deps),
    discord_post_item: discord.postItemTask(deps),
    discord_update_item: discord.updateItemTask(deps),
    teams_post_item: teams.postItemTask(deps),
    teams_update_item: teams.updateItemTask(deps),
    twilio_send_item: sendItemTask(deps),
    twilio_close_item: closeItemTask(deps),
    expire_item: (payload) => expireItem(deps, payload),
    escalate_item: (payload) => escalateItem(deps, payload),
    repeat_item: (payload) => repeatItem(deps, payload),
    send_email: (payload, helpers) => sendEmail(deps, payload, helpers),
    send_email_digest: (payload, helpers) => sendEmailDigest(deps, payload, helpers),
    prune_expired: async () => {
      const counts = await pruneExpired(deps.sql, {
        unusedClientHours: deps.env.OAUTH_CLIENT_UNUSED_HOURS,
      });
      deps.log.info({ counts }, 'pruned expired records');
    },
    apply_retention: async () => {
      const report = await applyRetention(deps);
      deps.log.info({ report }, 'applied retention periods');
    },
    audit_checkpoints: async () => {
      const report = await checkpointOrganizations(deps);
      deps.log.info({ report }, 'signed audit checkpoints');
    },
    delete_organization: async (payload) => {
      await deleteOrganization(deps, payload);
    },
  };
}

/**
 * The recurring jobs. Retention and checkpoints run in queues of their own: one run at a time,
 * however long one takes.
 */
export function crontab(env: Env): string {
  const lines = ['17 * * * * prune_expired', '47 * * * * apply_retention ?queue=retention'];
  const minutes = env.AUDIT_CHECKPOINT_MINUTES;
  const hours = minutes / 60;
  const schedule = minutes < 60 ? `*/${minutes} * * * *` : `7 ${hours === 1 ? '*' : `*/${hours}`} * * *`;
  if (minutes > 0) lines.push(`${schedule} audit_checkpoints ?queue=audit_checkpoints`);
  return lines.join('\n');
}

/**
 * The tasks that change only Beckon's own state: deadlines, escalations, reminders and
 * maintenance. Every other task talks to another service (a receiver, a push service, a chat, a
 * mail server) and may wait up to its outbound timeout: those run in a pool of their own, so
 * receivers that hang cannot hold back a deadline (docs/architecture.md, "Jobs"). A new task runs
 * with the deliveries unless it is listed here.
 */
export const INTERNAL_TASKS: ReadonlySet<TaskName> = new Set<TaskName>([
  'expire_item',
  'escalate_item',
  'repeat_item',
  'prune_expired',
  'apply_retention',
  'audit_checkpoints',
  'delete_organization',
]);

export type PoolKind = 'internal' | 'outbound';

export type WorkerHandle = {
  /** The id of a graphile-worker pool running now (a new one after a restart). */
  poolId: (kind: PoolKind) => string | undefined;
  stop: () => Promise<void>;
};

/** One pool's graphile-worker options: its tasks, how many run at once, its connections. */
function poolOptions(deps: Deps, kind: PoolKind, all: TaskList, logger: WorkerLogger): RunnerOptions {
  const internal = kind === 'internal';
  const concurrency = internal ? deps.env.WORKER_INTERNAL_CONCURRENCY : deps.env.WORKER_CONCURRENCY;
  return {
    concurrency,
    // Its own connections: jobs are fetched and completed in batches (below) and run their
    // queries on the process's pool, so a few serve any concurrency.
    maxPoolSize: Math.min(concurrency, 10) + 2,
    // graphile-worker fetches only the jobs of the tasks its pool is given.
    taskList: Object.fromEntries(
      Object.entries(all).filter(([name]) => INTERNAL_TASKS.has(name as TaskName) === internal),
    ),
    // The recurring jobs are internal; the other pool has none (and reads no crontab file).
    ...(internal ? { crontab: crontab(deps.env) } : { parsedCronItems: [] }),
    logger,
    pollInterval: deps.env.WORKER_POLL_INTERVAL_MS,
    // Fetch and complete jobs in batches: far fewer round trips per job (see docs/benchmarks.md).
    // Failures are batched too: unbatched, graphile-worker 0.18 leaves a failure that cannot be
    // recorded (the database is down) as an unhandled rejection, which ends the process; batched,
    // it is retried until the database is back (patches/graphile-worker@0.18.0.patch).
    preset: {
      worker: {
        localQueue: {
          size: 2 * concurrency,
          // Every new job wakes both pools. The internal pool's jobs are mostly scheduled ahead
          // (found by polling): after a fetch that found none, it waits about this long rather
          // than fetching again for every delivery queued (graphile-worker wants it within a poll).
          ...(internal
            ? { refetchDelay: { durationMs: Math.min(200, deps.env.WORKER_POLL_INTERVAL_MS) } }
            : {}),
        },
        completeJobBatchDelay: 0,
        failJobBatchDelay: 0,
        // On shutdown, running jobs get half the deadline before their abort signal fires; a
        // job still running at the deadline is handed back by the other workers (liveness.ts).
        gracefulShutdownAbortTimeout: Math.floor(deps.env.SHUTDOWN_TIMEOUT_MS / 2),
      },
    },
    noHandleSignals: true,
  };
}

/**
 * Starts graphile-worker on the shared database in two pools (INTERNAL_TASKS and the rest), with
 * its logs in ours, each started again if it stops by itself (worker-pool.ts); shows them alive
 * and keeps handing back the jobs of workers that died (see liveness.ts) and those their own
 * fetches lost on the way (orphans.ts).
 */
export async function startWorker(
  deps: Deps,
  connectionString: string,
  options: { events?: WorkerEvents } = {},
): Promise<WorkerHandle> {
  const log = deps.log.child({ component: 'worker' });
  const logger = new WorkerLogger(() => (level, message, meta) => {
    // Its advice to size the pool by the concurrency is for jobs fetched and completed one by one.
    if (message.includes('smaller than concurrency')) return;
    const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : 'debug';
    log[method](meta ?? {}, message);
  });
  const timeoutMs = deps.env.WORKER_LIVENESS_TIMEOUT_MS;
  const all = taskList(deps);
  const start = (kind: PoolKind) =>
    startSupervisedPool(
      deps.sql,
      { connectionString, timeoutMs, events: options.events, ...poolOptions(deps, kind, all, logger) },
      log.child({ pool: kind }),
    );
  const internal = await start('internal');
  const outbound = await start('outbound').catch(async (error: unknown) => {
    await internal.stop();
    throw error;
  });
  const pools = { internal, outbound };
  const sweeper = sweepDeadWorkers(deps.sql, {
    timeoutMs,
    intervalMs: deps.env.WORKER_SWEEP_INTERVAL_MS,
    onReleased: (dead) => log.warn({ pools: dead }, 'released the jobs of dead workers'),
    alongside: async () => {
      for (const [kind, pool] of Object.entries(pools)) {
        const jobs = await pool.releaseLost();
        if (jobs) log.warn({ pool: kind, jobs }, 'handed back jobs whose fetch was lost with its connection');
      }
    },
  });
  // Changes whose writer stopped between their commit and their sequencing (sequencer.ts).
  const sequencer = deps.sequencer;
  const sequencing = sequencer
    ? setInterval(
        () => void sequencer.sweep().catch((err) => log.warn({ err }, 'sequencer sweep failed')),
        deps.env.SEQUENCER_SWEEP_MS,
      )
    : undefined;
  return {
    poolId: (kind) => pools[kind].poolId(),
    stop: async () => {
      clearInterval(sequencing);
      sweeper.stop();
      await Promise.all([internal.stop(), outbound.stop()]);
    },
  };
}
