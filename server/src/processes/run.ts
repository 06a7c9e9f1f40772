import type { FastifyInstance } from 'fastify';
import { createDeps, type ProcessKind } from '../compose';
import { type Env, loadEnv } from '../env';
import { startWorker, type WorkerHandle } from '../jobs/worker';

/**
 * Runs one process of the deployment on a database that is already migrated: the resource
 * process (with the job worker unless RUN_WORKER=false), the authorization process, or the
 * worker alone. Stops cleanly on SIGTERM / SIGINT.
 */
export async function runProcess(kind: ProcessKind, env: Env = loadEnv()): Promise<void> {
  const { deps, close } = await createDeps(kind, env);
  const { log } = deps;
  // A promise nobody awaited that fails (a lost database connection inside a library, say) is
  // logged and the process goes on serving: one such failure must not end every open request.
  // An uncaught exception still ends the process (its state is unknown); the launcher restarts it.
  process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled rejection'));
  let app: FastifyInstance | undefined;
  let worker: WorkerHandle | undefined;
  // Each process loads only its own app (the authorization server's engine stays out of the
  // resource process).
  if (kind === 'resource') app = await (await import('../http/resource')).buildResourceApp(deps);
  if (kind === 'auth') app = await (await import('../http/auth')).buildAuthApp(deps);
  if (kind === 'worker' || (kind === 'resource' && env.RUN_WORKER)) {
    worker = await startWorker(deps, env.DATABASE_URL ?? '');
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
    for (const step of [() => app?.close(), () => worker?.stop(), close]) {
      await Promise.resolve(step()).catch(expected);
    }
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}
