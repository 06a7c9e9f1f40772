// `pnpm start` / `pnpm start:prod`: the whole service on one machine. Opens the database
// (embedded PostgreSQL when DATABASE_URL is unset), migrates it, then runs the authorization and
// resource processes and the gateway (dashboard + API on APP_URL's port) as children, starts again
// (with a back-off) a child that dies once it ran, and stops everything, database included, on
// SIGINT / SIGTERM / SIGHUP.
import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { openDatabase } from './database';
import { ConfigError, loadEnv } from './env';
import { createLogger, routeConsoleToLog } from './log';
import { LISTENING } from './processes/deadline';
import { exitOnStartupFailure } from './processes/startup-failure';
import { resolveSigningKey } from './signing-key';

const here = path.dirname(fileURLToPath(import.meta.url));
// From the source (tsx) the processes are src/processes/<kind>.ts; in the compiled build
// (server/tsdown.config.mjs) they are dist/<kind>.mjs beside this file, run by plain node.
const compiled = !import.meta.url.endsWith('.ts');
const RESTART_FIRST_MS = 1000;
const RESTART_MAX_MS = 30_000;
const RESTART_RESET_MS = 60_000;
const processFile = (kind: string) =>
  compiled ? path.join(here, `${kind}.mjs`) : path.join(here, 'processes', `${kind}.ts`);

async function main() {
  const env = loadEnv();
  const log = createLogger(env, 'beckon');
  routeConsoleToLog(log);
  const database = await openDatabase(env);
  log.info(`database: ${database.description}`);
  const signingKey = await resolveSigningKey(env);

  const children = new Map<string, ChildProcess>();
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    const exits = [...children.values()].map(
      (child) =>
        new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve))),
    );
    for (const child of children.values()) child.kill('SIGTERM');
    // Each child exits within SHUTDOWN_TIMEOUT_MS by itself; one that does not is killed.
    const kill = setTimeout(() => {
      for (const child of children.values()) if (child.exitCode === null) child.kill('SIGKILL');
    }, env.SHUTDOWN_TIMEOUT_MS + 2000);
    await Promise.all(exits);
    clearTimeout(kill);
    await database.close();
    log.info('stopped');
    process.exit(code);
  };

  const kinds = env.WEB_GATEWAY
    ? (['auth', 'resource', 'gateway'] as const)
    : (['auth', 'resource'] as const);
  // A child that dies is started again after a back-off (1 s, doubling to 30 s; back to 1 s once
  // it has run for a minute): one crashed process never takes the others down with it.
  const restarts = new Map<string, number>();
  // One line once every process listens: where to go, when it answers.
  const listening = new Set<string>();
  const ready = () => {
    log.info(
      `ready: resource process on http://${env.HOST}:${env.PORT}, authorization process on http://${env.HOST}:${env.AUTH_PORT}`,
    );
    if (env.WEB_GATEWAY) log.info(`ready: dashboard and API on ${env.APP_URL}`);
  };
  const start = (kind: (typeof kinds)[number]) => {
    const startedAt = Date.now();
    const child = fork(processFile(kind), {
      execArgv: compiled ? [] : ['--import', 'tsx'],
      env: { ...process.env, DATABASE_URL: database.url, OAUTH_SIGNING_KEY: signingKey },
    });
    children.set(kind, child);
    child.on('message', (message) => {
      if (message !== LISTENING || listening.has(kind)) return;
      listening.add(kind);
      if (listening.size === kinds.length) ready();
    });
    child.once('exit', (code, signal) => {
      if (stopping) return;
      // A process that never listened could not start (its port taken, say): its own line said
      // why, and starting it again would only say it again. Once it has run, it is restarted.
      if (!listening.has(kind)) {
        log.error({ kind, code, signal }, `the ${kind} process could not start: stopping`);
        void stop(1);
        return;
      }
      const failures = Date.now() - startedAt > RESTART_RESET_MS ? 0 : (restarts.get(kind) ?? 0);
      restarts.set(kind, failures + 1);
      const delay = Math.min(RESTART_MAX_MS, RESTART_FIRST_MS * 2 ** failures);
      log.error({ kind, code, signal, restart_in_ms: delay }, 'process exited; restarting it');
      setTimeout(() => {
        if (!stopping) start(kind);
      }, delay);
    });
  };
  for (const kind of kinds) start(kind);
  log.info(`starting: ${kinds.join(', ')}`);
  // SIGHUP: the terminal closed. The database, in a process group of its own, is not told.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => void stop(0));
}

main().catch((error: unknown) => {
  // A configuration error is its own message, for the person at the terminal; anything else is
  // one log line naming the setting to check (database, port, DATA_DIR).
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  exitOnStartupFailure(pino({ name: 'beckon' }), error, loadEnv());
});
