import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { IdentityCache } from '../auth/identity-cache';
import { syncPlanPrices } from '../billing/payments';
import { systemClock } from '../clock';
import { connect } from '../database';
import { DatabaseWatch } from '../database-watch';
import type { Deps } from '../deps';
import { type Env, loadEnv } from '../env';
import { startWorker, type WorkerHandle } from '../jobs/worker';
import { createLogger } from '../log';
import { createMailer } from '../mail/mailer';
import { EventHub } from '../realtime/event-hub';
import { localStorage } from '../storage/storage';

type Kind = 'resource' | 'auth' | 'worker';

/**
 * Runs one process of the deployment on a database that is already migrated: the resource
 * process (with the job worker unless RUN_WORKER=false), the authorization process, or the
 * worker alone. Stops cleanly on SIGTERM / SIGINT.
 */
export async function runProcess(kind: Kind, env: Env = loadEnv()): Promise<void> {
  const log = createLogger(env, `beckon-${kind}`);
  if (!env.DATABASE_URL) throw new Error(`the ${kind} process needs DATABASE_URL (pnpm start sets it)`);
  const { sql, db, end } = connect(env, env.DATABASE_URL, `beckon-${kind}`);
  const database = new DatabaseWatch(env.DATABASE_URL, env.DATABASE_WAIT_MS, (down) =>
    down ? log.error('database unreachable: requests answer 503') : log.warn('database reachable again'),
  );
  const identityCache = kind === 'resource' && env.IDENTITY_CACHE ? new IdentityCache() : undefined;
  const listener = await identityCache?.listen(env.DATABASE_URL);
  const storage = localStorage(path.resolve(env.DATA_DIR, 'attachments'));
  const mailer = createMailer(env, log);
  const events = kind === 'resource' ? new EventHub(sql) : undefined;
  await events?.listen(env.DATABASE_URL);
  const deps: Deps = {
    env,
    sql,
    db,
    log,
    storage,
    identityCache,
    clock: systemClock,
    mailer,
    events,
    database,
  };
  if (kind === 'resource') await syncPlanPrices(sql, env);

  let app: FastifyInstance | undefined;
  let worker: WorkerHandle | undefined;
  // Each process loads only its own app (the authorization server's engine stays out of the
  // resource process).
  if (kind === 'resource') app = await (await import('../http/resource')).buildResourceApp(deps);
  if (kind === 'auth') app = await (await import('../http/auth')).buildAuthApp(deps);
  if (kind === 'worker' || (kind === 'resource' && env.RUN_WORKER)) {
    worker = await startWorker(deps, env.DATABASE_URL);
  }
  if (app) {
    const port = kind === 'auth' ? env.AUTH_PORT : env.PORT;
    await app.listen({ host: env.HOST, port });
  }
  log.info({ kind }, 'started');

  const stop = async (signal: string) => {
    log.info({ signal }, 'stopping');
    // Ctrl-C in a terminal reaches the embedded PostgreSQL too, which may be gone before this
    // process has finished: a lost connection while stopping is expected, not a crash.
    const expected = (error: unknown) => log.warn({ err: error }, 'while stopping');
    process.on('unhandledRejection', expected).on('uncaughtException', expected);
    for (const step of [
      () => app?.close(),
      () => worker?.stop(),
      () => listener?.close(),
      () => events?.close(),
      () => mailer.close(),
      () => database.close(),
      () => end({ timeout: 5 }),
    ]) {
      await Promise.resolve(step()).catch(expected);
    }
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}
