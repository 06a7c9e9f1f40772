import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildGateway, type GatewayOptions } from '@beckon/server/http/gateway';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, freePort, HttpClient, startTestServer, type TestServer } from '../harness';

let server: TestServer;
const gateways: FastifyInstance[] = [];

/** A gateway in front of `upstreams`, serving `dist` as the dashboard. */
async function gateway(
  upstreams: { resource: string; auth: string },
  dist: string,
  options: GatewayOptions = {},
) {
  const app = await buildGateway(server.deps.log, upstreams, dist, options);
  gateways.push(app);
  return new HttpClient(await app.listen({ host: '127.0.0.1', port: 0 }));
}

/** A stand-in for the built dashboard (the gateway only serves files). */
async function fakeDist() {
  const dist = await mkdtemp(path.join(tmpdir(), 'beckon-dist-'));
  await writeFile(path.join(dist, 'index.html'), '<!doctype html><title>dashboard</title>');
  await writeFile(path.join(dist, 'app.js'), 'console.log(1)');
  return dist;
}

beforeAll(async () => {
  server = await startTestServer({ env: { RATE_LIMIT_VERIFY: '2/15m' } });
});
afterAll(async () => {
  for (const app of gateways) await app.close();
  await server?.close();
});

const upstreams = () => ({ resource: server.resource.baseUrl, auth: server.auth.baseUrl });

describe('gateway (pnpm start on APP_URL)', () => {
  it('routes the API to its two processes and everything else to the dashboard', async () => {
    const account = await new Factories(server.database.db).account('owner');
    const web = await gateway(upstreams(), await fakeDist());

    expect((await web.as(account.token).get<{ org_id: string }>('/api/me')).body.org_id).toBe(account.org.id);
    expect((await web.get('/api/me')).status).toBe(401);
    const me = await web.as(account.token).get<{ user: { id: string } }>('/auth/me');
    expect(me.body.user.id).toBe(account.user.id);
    expect((await web.get('/.well-known/oauth-authorization-server')).status).toBe(200);
    // Operations endpoints are the resource process's own, so probes through the origin see it.
    expect((await web.get('/health')).text).toBe('ok');
    expect((await web.get('/ready')).body).toEqual({ status: 'ready' });
    // Metrics stay on the processes' own ports, not on the public origin.
    expect(await web.get('/metrics')).toMatchObject({
      status: 404,
      body: { error: 'not found', code: 'not_found' },
    });
    expect((await server.resource.get('/metrics')).text).toContain('beckon_db_up 1');
    // The resource process's own answer (billing is not configured in this test server).
    expect((await web.post('/webhooks/payments', {})).body).toEqual({
      error: 'billing is not configured',
      code: 'billing_not_configured',
    });

    // The dashboard's files, its client-side routes, and its landing page under /auth.
    expect((await web.get('/app.js')).text).toBe('console.log(1)');
    for (const page of ['/', '/items/0199', '/agents', '/auth/callback']) {
      const response = await web.get(page);
      expect(response.status, page).toBe(200);
      expect(response.text, page).toContain('<title>dashboard</title>');
    }
    expect((await web.post('/nowhere', {})).status).toBe(404);
    // A file the build does not have is not the page.
    for (const file of ['/assets/index-0ld.js', '/missing.css', '/app.js.map?v=1']) {
      expect(await web.get(file), file).toMatchObject({ status: 404, body: { code: 'not_found' } });
    }
  });

  it('answers 503 in the API error shape while a process is down, and says when the dashboard is not built', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const web = await gateway({ resource: closed, auth: closed }, path.join(tmpdir(), 'beckon-no-dist'));
    for (const route of ['/api/me', '/auth/config', '/health', '/ready']) {
      const response = await web.get(route);
      expect(response.status, route).toBe(503);
      expect(response.body, route).toEqual({ error: 'service unavailable', code: 'service_unavailable' });
    }
    const page = await web.get('/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('the dashboard has not been built');
  });

  it('sends the dashboard with its security headers, and HSTS only when APP_URL is https', async () => {
    const web = await gateway(upstreams(), await fakeDist());
    for (const page of ['/', '/app.js', '/verify']) {
      const { headers } = await web.get(page);
      expect(headers.get('content-security-policy'), page).toContain("script-src 'self'");
      expect(headers.get('content-security-policy'), page).toContain("frame-ancestors 'none'");
      expect(headers.get('x-frame-options'), page).toBe('DENY');
      expect(headers.get('referrer-policy'), page).toBe('no-referrer');
      expect(headers.get('x-content-type-options'), page).toBe('nosniff');
      expect(headers.get('strict-transport-security'), page).toBeNull();
    }
    // The API's answers are the processes' own (no dashboard policy on JSON).
    expect((await web.get('/api/me')).headers.get('content-security-policy')).toBeNull();

    const secure = await gateway(upstreams(), await fakeDist(), { appUrl: 'https://beckon.example' });
    for (const page of ['/', '/app.js', '/api/me']) {
      expect((await secure.get(page)).headers.get('strict-transport-security'), page).toBe(
        'max-age=31536000; includeSubDomains',
      );
    }
  });

  it("tells the processes the client's address, not the X-Forwarded-For a client sent", async () => {
    // The gateway at the edge (it trusts no proxy); the processes trust it, a loopback peer.
    const web = await gateway(upstreams(), await fakeDist(), { trustProxy: false });
    const statuses = [];
    for (let i = 1; i <= 3; i++) {
      const spoofed = { 'x-forwarded-for': `198.51.100.${i}` };
      statuses.push((await web.get('/auth/verify?token=x', { headers: spoofed })).status);
    }
    // One client (127.0.0.1) whatever it claimed: its third guess meets the 2/15m limit.
    expect(statuses).toEqual([400, 400, 429]);
  });
});
