import { createServer, type Server, type Socket } from 'node:net';
import { createDb, listenOnDedicatedConnection } from '@beckon/db';
import { DatabaseWatch } from '@beckon/server/database-watch';
import { AppError, isDatabaseUnavailable, toAppError, toJsonRpcError } from '@beckon/server/errors';
import { router } from '@beckon/server/trpc/init';
import { publicProcedure } from '@beckon/server/trpc/procedures';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { freePort, startTestServer, type TestServer } from '../harness';

/** A PostgreSQL address where nothing listens: every connection is refused. */
let refusedUrl: string;
let refused: postgres.Sql;
/** A server that accepts connections and never answers: a database cut off by the network. */
let blackhole: Server;
let blackholeUrl: string;
const sockets: Socket[] = [];
let server: TestServer;

const probeRouter = router({
  probe: router({
    database: publicProcedure
      .meta({ openapi: { method: 'POST', path: '/probe/database' } })
      .input(z.object({}))
      .output(z.object({}))
      .mutation(async () => {
        await refused`select 1`;
        return {};
      }),
  }),
});

beforeAll(async () => {
  refusedUrl = `postgres://beckon:x@127.0.0.1:${await freePort()}/beckon`;
  refused = postgres(refusedUrl, { max: 1, connect_timeout: 2, onnotice: () => {} });
  blackhole = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => blackhole.listen(0, '127.0.0.1', resolve));
  const address = blackhole.address();
  blackholeUrl = `postgres://beckon:x@127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/beckon`;
  server = await startTestServer({ router: probeRouter });
});

afterAll(async () => {
  await server?.close();
  await refused?.end({ timeout: 0 });
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => blackhole?.close(() => resolve()));
});

describe('an unreachable database', () => {
  it('is a 503 with Retry-After over REST, not a 500', async () => {
    const response = await server.resource.post('/api/probe/database', {});
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ error: 'database unavailable', code: 'database_unavailable' });
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('is the same 503 over tRPC, and a JSON-RPC error carrying that body', async () => {
    const response = await server.resource.post<{
      error: { data: { httpStatus: number; body: unknown } };
    }>('/trpc/probe.database', {});
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(response.body.error.data.httpStatus).toBe(503);
    expect(response.body.error.data.body).toEqual({
      error: 'database unavailable',
      code: 'database_unavailable',
    });
    const error = await refused`select 1`.catch((e: unknown) => e);
    const rpc = toJsonRpcError(toAppError(error));
    expect(rpc.data).toEqual({ error: 'database unavailable', code: 'database_unavailable' });
    expect(rpc.message).toBe('database unavailable');
  });

  it('takes a write refused as read-only (25006: a standby not yet promoted) for an unavailable database', async () => {
    const refusedWrite = await server.database.sql
      .begin('read only', (tx) => tx`create temporary table standby_probe (n int)`)
      .catch((e: unknown) => e);
    expect((refusedWrite as { code?: string }).code).toBe('25006');
    expect(isDatabaseUnavailable(refusedWrite)).toBe(true);
    expect(toAppError(refusedWrite).status).toBe(503);
  });

  it('a listener keeps listening after a reconnection whose first LISTEN fails', async () => {
    const received: string[] = [];
    let listens = 0;
    const listening = await listenOnDedicatedConnection(
      server.database.url,
      'beckon-test-listener',
      'test_relisten',
      {
        onnotify: (payload) => received.push(payload),
        onlisten: () => {
          listens++;
          // The first attempt after the cut fails on an open session, as on a standby (25006).
          if (listens === 2) throw new Error('refused once');
        },
      },
    );
    try {
      await server.database.sql`
        select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'beckon-test-listener'`;
      for (const deadline = Date.now() + 10_000; listens < 3 && Date.now() < deadline; )
        await new Promise((r) => setTimeout(r, 50));
      expect(listens).toBe(3);
      await server.database.sql`select pg_notify('test_relisten', 'after')`;
      for (const deadline = Date.now() + 5000; received.length === 0 && Date.now() < deadline; )
        await new Promise((r) => setTimeout(r, 50));
      expect(received).toEqual(['after']);
    } finally {
      await listening.close();
    }
  });

  it('a listener listens again when its connection closes between its LISTEN and onlisten', async () => {
    const received: string[] = [];
    let listens = 0;
    let closes = 0;
    const terminate = () => server.database.sql`
      select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'beckon-test-relisten'`;
    const listening = await listenOnDedicatedConnection(
      server.database.url,
      'beckon-test-relisten',
      'test_relisten_closed',
      {
        onnotify: (payload) => received.push(payload),
        onlisten: async (connection) => {
          listens++;
          if (listens === 2) {
            // Cut after this LISTEN held; onlisten's query then runs on a new, not listening session.
            const before = closes;
            await terminate();
            for (const deadline = Date.now() + 5000; closes === before && Date.now() < deadline; )
              await new Promise((r) => setTimeout(r, 20));
          }
          await connection`select 1`;
        },
        onclose: () => closes++,
      },
    );
    try {
      await terminate();
      for (const deadline = Date.now() + 10_000; listens < 3 && Date.now() < deadline; )
        await new Promise((r) => setTimeout(r, 50));
      expect(listens).toBe(3);
      await server.database.sql`select pg_notify('test_relisten_closed', 'after')`;
      for (const deadline = Date.now() + 5000; received.length === 0 && Date.now() < deadline; )
        await new Promise((r) => setTimeout(r, 50));
      expect(received).toEqual(['after']);
    } finally {
      await listening.close();
    }
  });

  it('recognises a connection ended by the server (57P01), also wrapped by drizzle', async () => {
    const session = await server.database.sql.reserve();
    const [{ pid }] = await session<[{ pid: number }]>`select pg_backend_pid() as pid`;
    const running = session`select pg_sleep(5)`.catch((e: unknown) => e);
    await server.database.sql`select pg_terminate_backend(${pid})`;
    const ended = await running;
    session.release();
    expect(isDatabaseUnavailable(ended)).toBe(true);
    expect(toAppError(ended).status).toBe(503);
    // The dead connection does not go back to the pool as if it were open (patched postgres.js).
    for (let i = 0; i < 3; i++) expect(await server.database.sql`select 1 as one`).toEqual([{ one: 1 }]);

    const { db, end } = createDb(refusedUrl, { max: 1, connectTimeoutSeconds: 2 });
    const wrapped = await db.execute('select 1').catch((e: unknown) => e);
    await end({ timeout: 0 });
    expect(isDatabaseUnavailable(wrapped)).toBe(true);
  });

  it('a transaction whose connection is cut mid-query fails, and the pool goes on (patched postgres.js)', async () => {
    const pool = postgres(server.database.url, { max: 1, onnotice: () => {} });
    try {
      let pid: number | null = null;
      let afterCut: unknown = null;
      const transaction = pool
        .begin(async (tx) => {
          [{ pid }] = await tx<[{ pid: number }]>`select pg_backend_pid() as pid`;
          await tx`select pg_sleep(5)`.catch(async (error: unknown) => {
            // A query after the cut must not run on a reconnected session, outside the transaction.
            afterCut = await tx`select 1`.then(
              () => 'ran outside the transaction',
              (e: unknown) => e,
            );
            throw error;
          });
        })
        .catch((error: unknown) => error);
      for (let i = 0; i < 100 && pid === null; i++) await new Promise((r) => setTimeout(r, 20));
      await server.database.sql`select pg_terminate_backend(${pid})`;
      // Unpatched, the transaction's own rollback on the closed socket threw from an immediate
      // callback: an uncaught exception that ended the process (and fails this test run).
      expect(isDatabaseUnavailable(await transaction)).toBe(true);
      expect(isDatabaseUnavailable(afterCut)).toBe(true);
      expect(await pool`select 1 as one`).toEqual([{ one: 1 }]);
    } finally {
      await pool.end({ timeout: 1 });
    }
  });

  it('does not take query errors for an outage', async () => {
    const error = await server.database.sql`select 1/0`.catch((e: unknown) => e);
    expect(isDatabaseUnavailable(error)).toBe(false);
    expect(toAppError(error).status).toBe(500);
  });

  it('that hangs: the watch answers 503 after its wait rather than the pool after its own timeout', async () => {
    const hung = postgres(blackholeUrl, { max: 1, connect_timeout: 20, onnotice: () => {} });
    const watch = new DatabaseWatch(blackholeUrl, 300);
    try {
      const started = Date.now();
      const error = await watch.guard(() => hung`select 1`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).status).toBe(503);
      expect(Date.now() - started).toBeLessThan(20_000);
      // Known down now: the next request is refused without waiting.
      expect(watch.isDown).toBe(true);
      const next = await watch.guard(() => hung`select 1`).catch((e: unknown) => e);
      expect((next as AppError).status).toBe(503);
    } finally {
      await watch.close();
      await hung.end({ timeout: 0 });
    }
  });

  it('recovers: a watch whose database answers again lets requests through', async () => {
    const watch = new DatabaseWatch(server.database.url, 1000);
    try {
      watch.report(await refused`select 1`.catch((e: unknown) => e));
      await expect(watch.guard(async () => 'ran')).rejects.toBeInstanceOf(AppError);
      for (let i = 0; i < 100 && watch.isDown; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await watch.guard(async () => 'ran')).toBe('ran');
    } finally {
      await watch.close();
    }
  });
});
