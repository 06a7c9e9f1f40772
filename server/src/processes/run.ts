import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { createDeps, type ProcessKind } from '../compose';
import { type Env, loadEnv } from '../env';
import { startWorker, type WorkerHandle } from '../jobs/worker';
import { createLogger, type Logger, routeConsoleToLog } from '../log';
import { startTracing } from '../tracing/tracing';
import { exitByDeadline, reportListening, stopOnSignals } from './deadline';
import { exitOnStartupFailure } from './startup-failure';

/**
 * Runs one process of the deployment on a database that is already migrated: the resource
 * process (with the job worker unless RUN_WORKER=false), the authorization process, or the
 * worker alone. Stops cleanly on SIGTERM / SIGINT, or when the launcher that forked it is gone.
 */
export async function runProcess(kind: ProcessKind, given?: Env): Promise<void> {
  const env = given ?? loadEnvOrExit(`beckon-${kind}`);
  const log = createLogger(env, `beckon-${kind}`);
  routeConsoleToLog(log);
  // A promise nobody awaited that fails (a lost database connection inside a library, say) is
  // logged and the process goes on serving: one such failure must not end every open request.
  // An uncaught exception still ends the process (its state is unknown); the launcher restarts it.
  process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled rejection'));
  // Before the apps are built: their request, query and job hooks are installed only when tracing.
  const stopTracing = await startTracing(env, kind);
  const { close, app, worker } = await start(kind, env, log).catch((error: unknown) =>
    exitOnStartupFailure(log, error, env),
  );
  log.info({ kind }, 'started');
  reportListening();

  const stop = async (reason: string) => {
    log.info({ reason, deadline_ms: env.SHUTDOWN_TIMEOUT_MS }, 'stopping');
    exitByDeadline(log, env.SHUTDOWN_TIMEOUT_MS);
    // A database lost while stopping (a failover, a server stopped first) ends what was still
    // running on it: expected, not a crash.
    const expected = (error: unknown) => log.warn({ err: error }, 'while stopping');
    process.on('unhandledRejection', expected).on('uncaughtException', expected);
    // The app ends its streams, sockets and waiting calls, then in-flight requests; meanwhile the
    // worker finishes its jobs (or hands them back, worker.ts). Then the connections close.
    await Promise.all([app?.close(), worker?.stop()].map((step) => Promise.resolve(step).catch(expected)));
    await Promise.resolve(close()).catch(expected);
    // The spans still buffered are sent before exiting.
    await stopTracing?.().catch(expected);
    log.info('stopped');
    process.exit(0);
  };
  stopOnSignals((reason) => void stop(reason));
}

async function start(kind: ProcessKind, env: Env, log: Logger) {
  const { deps, close } = await createDeps(kind, env, { log });
  let app: FastifyInstance | undefined;
  let worker: WorkerHandle | undefined;
  try {
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
  } catch (error) {
    await worker?.stop().catch(() => {});
    await Promise.resolve(close()).catch(() => {});
    throw error;
  }
  return { deps, close, app, worker };
}

/** The configuration, or its errors as loadEnv words them on stderr and exit code 1. */
export function loadEnvOrExit(name: string): Env {
  try {
    return loadEnv();
  } catch (error) {
    exitOnStartupFailure(pino({ name }), error, {});
  }
}
