import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createDb,
  type EmbeddedDatabase,
  ensureDatabase,
  startEmbeddedPostgres,
  withDatabase,
} from '@beckon/db';
import { migrateAll } from '@beckon/server/database';
import { freePort } from '../harness';
import { collectOutput } from '../harness/child-output';

/**
 * What fault tests own, so they can break it: an embedded PostgreSQL of their own (never the
 * shared one) that can be stopped and started again on the same data and port, and real
 * resource processes (`server/src/processes/resource.ts`) that can be killed.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export type OwnPostgres = {
  /** The migrated `beckon` database. */
  url: string;
  stop: () => Promise<void>;
  start: () => Promise<void>;
  close: () => Promise<void>;
};

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'beckon-fault-pg-'));
  const port = await freePort();
  let server: EmbeddedDatabase | null = await startEmbeddedPostgres({ dataDir, port });
  // A name of its own: a process of another test file that used this port before and still
  // reconnects to it cannot join this database (and be counted among its listeners).
  const name = `beckon_${randomBytes(6).toString('hex')}`;
  await ensureDatabase(server.url, name);
  const url = withDatabase(server.url, name);
  await migrateAll(url);
  return {
    url,
    stop: async () => {
      await server?.stop();
      server = null;
    },
    start: async () => {
      server ??= await startEmbeddedPostgres({ dataDir, port });
    },
    close: async () => {
      await server?.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export type ResourceProcess = {
  url: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  /** SIGTERM, and waits for the exit (SIGKILL after 15 s). */
  stop: () => Promise<void>;
};

/** Spawns a resource process (job worker included) on `databaseUrl`; resolves once /health answers. */
export async function spawnResource(databaseUrl: string, env: Record<string, string> = {}) {
  const port = await freePort();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'beckon-fault-data-'));
  const { DATABASE_URL: _, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/processes/resource.ts'], {
    cwd: root,
    env: {
      ...inherited,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      ALLOW_PRIVATE_DESTINATIONS: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = collectOutput(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  void exited.then(() => rm(dataDir, { recursive: true, force: true }));
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 60_000; ; ) {
    if (child.exitCode !== null) throw new Error(`resource process exited:\n${output()}`);
    if (Date.now() > deadline) {
      // Not left running: it would keep reconnecting to this port after the test file ends.
      child.kill('SIGKILL');
      throw new Error(`resource process did not start:\n${output()}`);
    }
    if (
      await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    // A process that does not stop in time is killed: a test must not leave one behind.
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  return { url, child, output, exited, stop } satisfies ResourceProcess;
}

/** A drizzle + postgres.js client on the fault test's database, for factories and checks. */
export const openClient = (url: string) => createDb(url, { max: 2, applicationName: 'beckon-fault-test' });

/** Polls `check` until it holds or `timeoutMs` passes; returns whether it held. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number) {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}
