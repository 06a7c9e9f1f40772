import { manualClock } from '@beckon/server/clock';
import { buildResourceApp } from '@beckon/server/http/resource';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, HttpClient, startTestServer, type TestServer } from '../harness';

const clock = manualClock(new Date('2026-11-23T10:00:10.000Z'));
let server: TestServer;
let f: Factories;
const extraApps: FastifyInstance[] = [];

beforeAll(async () => {
  server = await startTestServer({
    clock,
    env: { RATE_LIMIT_API: '5/1m', RATE_LIMIT_SYNC_MS: '20' },
  });
  f = new Factories(server.database.db);
});
afterAll(async () => {
  for (const app of extraApps) await app.close();
  await server?.close();
});

const mcpHeaders = { accept: 'application/json, text/event-stream' };
const initialize = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

/** Ten seconds into the next minute: a new window (50 s left) for the `5/1m` limit of this file. */
const nextWindow = () => clock.advance(60_000 - (clock().getTime() % 60_000) + 10_000);

describe('per-credential limit on /api, /trpc and /mcp', () => {
  it('shows the IETF RateLimit fields on every answer, and a 429 with Retry-After and RateLimit-Limit/Remaining/Reset once a credential has used its window', async () => {
    nextWindow();
    const { token } = await f.account();
    const api = server.resource.as(token);
    for (let i = 1; i <= 5; i++) {
      const ok = await api.get('/api/me');
      expect(ok.status).toBe(200);
      expect(ok.headers.get('ratelimit-policy')).toBe('"api";q=5;w=60');
      expect(ok.headers.get('ratelimit')).toBe(`"api";r=${5 - i};t=50`);
    }
    const refused = await api.get('/api/me');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'rate limited', code: 'rate_limited' });
    expect(refused.headers.get('retry-after')).toBe('50');
    expect(refused.headers.get('ratelimit-limit')).toBe('5');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('ratelimit-reset')).toBe('50');
    expect(refused.headers.get('ratelimit-policy')).toBe('"api";q=5;w=60');
    expect(refused.headers.get('ratelimit')).toBe('"api";r=0;t=50');

    // tRPC: the same status and body inside its error envelope.
    const trpc = await api.get<{ error: { data: { httpStatus: number; code: string; body: unknown } } }>(
      '/trpc/identity.whoAmI',
    );
    expect(trpc.status).toBe(429);
    expect(trpc.headers.get('retry-after')).toBe('50');
    expect(trpc.body.error.data).toMatchObject({
      code: 'TOO_MANY_REQUESTS',
      httpStatus: 429,
      body: { error: 'rate limited', code: 'rate_limited' },
    });
    const batch = await api.get<unknown[]>('/trpc/identity.whoAmI,identity.whoAmI?batch=1&input={}');
    expect(batch.status).toBe(429);
    expect(batch.body).toHaveLength(2);

    // Another credential of the same person has its own count.
    const { token: other } = await f.account();
    expect((await server.resource.as(other).get('/api/me')).status).toBe(200);

    // A new window starts the count again.
    nextWindow();
    expect((await api.get('/api/me')).status).toBe(200);
  });

  it('counts every call of a tRPC batch', async () => {
    nextWindow();
    const { token } = await f.account();
    const api = server.resource.as(token);
    const four = 'identity.whoAmI,identity.whoAmI,identity.whoAmI,identity.whoAmI';
    expect((await api.get(`/trpc/${four}?batch=1&input={}`)).status).toBe(200);
    expect((await api.get('/api/me')).status).toBe(200);
    expect((await api.get('/api/me')).status).toBe(429);
  });

  it('answers MCP with a JSON-RPC error carrying the REST body, over HTTP 429', async () => {
    nextWindow();
    const { org, user } = await f.account();
    const key = await f.apiKey(org.id, user.id);
    const mcp = server.resource.as(key.token);
    for (let i = 1; i <= 5; i++) {
      expect((await mcp.post('/mcp', initialize(i), { headers: mcpHeaders })).status).toBe(200);
    }
    const refused = await mcp.post('/mcp', initialize(6), { headers: mcpHeaders });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('50');
    expect(refused.headers.get('ratelimit-policy')).toBe('"api";q=5;w=60');
    expect(refused.body).toEqual({
      jsonrpc: '2.0',
      id: 6,
      error: { code: -32029, message: 'rate limited', data: { error: 'rate limited', code: 'rate_limited' } },
    });
    // The key is limited on REST too: one count per credential.
    expect((await mcp.get('/api/me')).status).toBe(429);
  });

  it('counts requests without a credential by client address, and an inbound webhook by its token', async () => {
    nextWindow();
    const anonymous = server.resource.as(null);
    for (let i = 0; i < 5; i++) expect((await anonymous.get('/api/me')).status).toBe(401);
    const refused = await anonymous.get('/api/me');
    expect(refused.status).toBe(429);
    // A bad token does not escape the address's count.
    expect((await server.resource.as('not-a-token').get('/api/me')).status).toBe(429);
    // An inbound webhook token is counted apart from the address (its callers share addresses).
    expect((await anonymous.post('/api/webhooks/inbound/unknown-token', { title: 'x' })).status).toBe(404);
    // A signed-in caller on the same address is counted by its credential.
    const { token } = await f.account();
    expect((await server.resource.as(token).get('/api/me')).status).toBe(200);
  });

  it('is shared by the processes of a deployment through PostgreSQL', async () => {
    nextWindow();
    const second = await buildResourceApp(server.deps);
    extraApps.push(second);
    const other = new HttpClient(await second.listen({ host: '127.0.0.1', port: 0 }));
    const { token } = await f.account();
    for (let i = 0; i < 4; i++) expect((await server.resource.as(token).get('/api/me')).status).toBe(200);
    // The first process shares its count (it syncs every RATE_LIMIT_SYNC_MS, 20 ms here).
    await expect
      .poll(
        async () =>
          (
            await server.database.sql<{ hits: number }[]>`
            select hits from rate_limit_counters
             where key like 'api:cred:%' and window_end > ${clock()}`
          )[0]?.hits,
      )
      .toBe(4);
    // The second process counted nothing itself: it refuses once it has learnt the shared count
    // (at its first sync, started by its first request here), well before counting 5 of its own.
    let accepted = 0;
    await expect
      .poll(async () => {
        const status = (await other.as(token).get('/api/me')).status;
        if (status === 200) accepted += 1;
        return status;
      })
      .toBe(429);
    expect(accepted).toBeGreaterThanOrEqual(1);
    expect(accepted).toBeLessThan(5);
  });
});
