import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fenceCaches } from '@beckon/server/caches/fence';
import type { Clock } from '@beckon/server/clock';
import { createDeps } from '@beckon/server/compose';
import type { Deps } from '@beckon/server/deps';
import { loadEnv } from '@beckon/server/env';
import { buildAuthApp } from '@beckon/server/http/auth';
import { buildResourceApp } from '@beckon/server/http/resource';
import { startWorker } from '@beckon/server/jobs/worker';
import { createLogger } from '@beckon/server/log';
import type { AnyTRPCRouter } from '@trpc/server';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from './database';
import { HttpClient } from './http';

export type TestServer = {
  database: TestDatabase;
  deps: Deps;
  authDeps: Deps;
  resource: HttpClient;
  auth: HttpClient;
  /**
   * Waits until the resource process has applied every identity change committed so far (what
   * Beckon's own revocations do before answering; needed after changes made directly in SQL).
   */
  syncIdentities: () => Promise<void>;
  close: () => Promise<void>;
};

export type TestServerOptions = {
  env?: Record<string, string>;
  /** Serve this router on the resource process instead of the application's. */
  router?: AnyTRPCRouter;
  /** Run the job worker (callbacks, deadlines) against the test database. */
  worker?: boolean;
  /** "Now" for credential lifetimes on both processes (see manualClock). */
  clock?: Clock;
  /**
   * Serve this database (another server's: a second process on the same data, or a restart)
   * instead of a fresh one; it is then left in place on close.
   */
  database?: TestDatabase;
  /** Listen on these ports (e.g. chosen with freePort() so ISSUER_URL can name them); 0 = any. */
  ports?: { resource?: number; auth?: number };
};

export const TESTS_NEVER_MEET: Record<string, string> = {
  RATE_LIMIT_API: '1000000/1m',
  RATE_LIMIT_SIGN_IN: '100000/15m',
  RATE_LIMIT_VERIFY: '100000/15m',
  RATE_LIMIT_TOKEN: '100000/15m',
  RATE_LIMIT_REGISTER: '100000/1h',
};

const listen = async (app: FastifyInstance, port = 0) => {
  await app.listen({ host: '127.0.0.1', port });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
};

/** Both processes on their own cloned database, listening on free loopback ports. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const database = options.database ?? (await createTestDatabase());
  const dataDir = await mkdtemp(path.join(tmpdir(), 'beckon-test-data-'));
  const env = loadEnv({
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    ALLOW_PRIVATE_DESTINATIONS: 'true',
    WORKER_POLL_INTERVAL_MS: '50',
    DELIVERY_RETRY_BASE_MS: '100',
    // Every test of a file comes from 127.0.0.1 with a few credentials: the rate limits are set
    // out of reach (tests/src/foundation/rate-limits.test.ts lowers them). The per-email limit
    // of magic links keeps its default.
    ...TESTS_NEVER_MEET,
    // Checkpoints on the wall clock would add entries to a test's chains at any moment: tests run
    // the job themselves (tests/src/proofs/audit-checkpoints.test.ts).
    AUDIT_CHECKPOINT_MINUTES: '0',
    ...options.env,
  });
  const log = createLogger(env, 'beckon-test');
  const clock = options.clock;
  const resource = await createDeps('resource', env, { clock, log });
  const authSide = await createDeps('auth', env, { clock, log });
  const resourceDeps = resource.deps;
  const authDeps = authSide.deps;
  const resourceApp = await buildResourceApp(resourceDeps, options.router);
  const authApp = await buildAuthApp(authDeps);
  const [resourceUrl, authUrl] = await Promise.all([
    listen(resourceApp, options.ports?.resource),
    listen(authApp, options.ports?.auth),
  ]);
  const worker = options.worker ? await startWorker(resourceDeps, database.url) : undefined;
  return {
    database,
    deps: resourceDeps,
    authDeps,
    resource: new HttpClient(resourceUrl),
    auth: new HttpClient(authUrl),
    syncIdentities: async () => {
      await fenceCaches({ sql: database.sql, log });
    },
    close: async () => {
      await Promise.all([resourceApp.close(), authApp.close()]);
      await worker?.stop();
      await Promise.all([resource.close(), authSide.close()]);
      if (!options.database) await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
