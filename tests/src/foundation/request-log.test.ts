import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBaseApp } from '@beckon/server/http/common';
import { buildGateway } from '@beckon/server/http/gateway';
import { redactUrl } from '@beckon/server/http/log-redaction';
import { buildResourceApp } from '@beckon/server/http/resource';
import { logMixin } from '@beckon/server/log';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

describe('request logs', () => {
  it('redact secrets in the query and in secret-bearing paths', () => {
    expect(redactUrl('/auth/verify?token=abc123')).toBe('/auth/verify?token=[redacted]');
    expect(redactUrl('/auth/oauth/idp_a/callback?code=c0de&state=s7&x=1')).toBe(
      '/auth/oauth/idp_a/callback?code=[redacted]&state=[redacted]&x=1',
    );
    expect(redactUrl('/api/webhooks/inbound/whk_secret')).toBe('/api/webhooks/inbound/[redacted]');
    expect(redactUrl('/auth/invitations/inv-code')).toBe('/auth/invitations/[redacted]');
    expect(redactUrl('/auth/invitations/accept')).toBe('/auth/invitations/accept');
    expect(redactUrl('/invite/inv-code')).toBe('/invite/[redacted]');
    expect(redactUrl('/%69nvite/inv-code?x=1')).toBe('/invite/[redacted]?x=1');
    expect(redactUrl('/INVITE/inv%ZZcode')).toBe('/INVITE/[redacted]');
    expect(redactUrl('/items/inv-code')).toBe('/items/inv-code');
    expect(redactUrl('/api/items?status=open&limit=50')).toBe('/api/items?status=open&limit=50');
  });

  it('redact the secret fields of a tRPC query input, batches included', () => {
    const input = (value: unknown) => encodeURIComponent(JSON.stringify(value));
    const logged = (url: string) => decodeURIComponent(redactUrl(url));
    expect(logged(`/auth/trpc/accounts.verifyMagicLink?input=${input({ token: 'LINK' })}`)).toBe(
      '/auth/trpc/accounts.verifyMagicLink?input={"token":"[redacted]"}',
    );
    expect(
      logged(
        `/auth/trpc/accounts.previewInvitation,items.list?batch=1&input=${input({ 0: { code: 'INV' }, 1: { status: 'open' } })}`,
      ),
    ).toBe(
      '/auth/trpc/accounts.previewInvitation,items.list?batch=1&input={"0":{"code":"[redacted]"},"1":{"status":"open"}}',
    );
    // Not JSON: nothing of it is kept.
    expect(logged('/trpc/x?input=token%3DLINK')).toBe('/trpc/x?input=[redacted]');
  });

  it('are written without the secret', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const app = createBaseApp({ ...server.deps, log }, { name: 'auth' });
    try {
      await app.inject({ url: '/auth/verify?token=SECRET-LINK-TOKEN' });
      await app.inject({ method: 'POST', url: '/api/webhooks/inbound/SECRET-WEBHOOK-TOKEN' });
      await app.inject({
        url: `/auth/trpc/accounts.verifyMagicLink?input=${encodeURIComponent('{"token":"SECRET-TRPC-TOKEN"}')}`,
      });
    } finally {
      await app.close();
    }
    const logged = lines.join('');
    expect(logged).toContain('/auth/verify?token=[redacted]');
    expect(logged).toContain('/api/webhooks/inbound/[redacted]');
    expect(logged).not.toContain('SECRET');
  });

  it('are written without an invitation code by the gateway, for its pages and what it forwards', async () => {
    const lines: string[] = [];
    // The gateway's line per request is debug (quiet at info).
    const log = pino({ level: 'debug' }, { write: (line: string) => lines.push(line) });
    const upstreams = { resource: server.resource.baseUrl, auth: server.auth.baseUrl };
    const gateway = await buildGateway(log, upstreams, '/nonexistent-dashboard');
    try {
      const input = encodeURIComponent('{"code":"SECRET-CODE-3"}');
      for (const url of [
        '/invite/SECRET-CODE-1',
        '/%69nvite/SECRET-CODE-2',
        `/auth/trpc/accounts.previewInvitation?input=${input}`,
        '/auth/invitations/SECRET-CODE-4',
      ]) {
        expect((await gateway.inject({ url })).statusCode).toBeLessThan(500);
      }
    } finally {
      await gateway.close();
    }
    const logged = lines.join('');
    // The forwarded requests were logged, redacted.
    expect(logged).toContain('/invite/[redacted]');
    expect(logged).toContain('"url":"/auth/invitations/[redacted]"');
    expect(logged).not.toContain('SECRET');
  });
});

const capture = (level: string) => {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level, mixin: logMixin }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { lines, log };
};

describe('request ids and completion lines', () => {
  it('one line per request: method, route pattern, status, duration, organization, credential, request id', async () => {
    const f = new Factories(server.database.db);
    const account = await f.account('owner');
    const key = await f.apiKey(account.org.id, account.user.id);
    const { lines, log } = capture('info');
    const app = await buildResourceApp({ ...server.deps, log });
    let made: Awaited<ReturnType<typeof app.inject>> | undefined;
    try {
      const given = await app.inject({
        url: '/api/items?limit=5',
        headers: { authorization: `Bearer ${key.token}`, 'x-request-id': 'deploy-42' },
      });
      expect(given.statusCode).toBe(200);
      expect(given.headers['x-request-id']).toBe('deploy-42');
      const traced = await app.inject({
        url: '/trpc/items.list',
        headers: {
          authorization: `Bearer ${account.token}`,
          traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        },
      });
      expect(traced.headers['x-request-id']).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
      made = await app.inject({ url: '/api/me' });
      expect(made.statusCode).toBe(401);
      expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      // A probe is debug; and nothing but JSON lines.
      await app.inject({ url: '/health' });
    } finally {
      await app.close();
    }
    const completed = lines.filter((line) => line.msg === 'request completed');
    expect(completed).toHaveLength(3);
    expect(completed[0]).toMatchObject({
      request_id: 'deploy-42',
      method: 'GET',
      route: '/api/items',
      status: 200,
      duration_ms: expect.any(Number),
      org_id: account.org.id,
      credential: 'api_key',
      agent_id: key.agentId,
    });
    expect(completed[1]).toMatchObject({
      request_id: '4bf92f3577b34da6a3ce929d0e0e4736',
      route: '/trpc/:path',
      procedures: ['items.list'],
      credential: 'session',
      org_id: account.org.id,
    });
    expect(completed[2]).toMatchObject({
      route: '/api/me',
      status: 401,
      request_id: made?.headers['x-request-id'],
    });
    expect(completed[2]).not.toHaveProperty('org_id');
    // No other line per request at info ("incoming request" is gone).
    expect(lines.filter((line) => line.msg === 'incoming request')).toHaveLength(0);
  });

  it('the gateway passes the id on (made once at the edge) and writes nothing per request at info', async () => {
    const seen: string[] = [];
    const upstream = createServer((req, res) => {
      seen.push(String(req.headers['x-request-id']));
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const { port } = upstream.address() as AddressInfo;
    const { lines, log } = capture('info');
    const target = `http://127.0.0.1:${port}`;
    const gateway = await buildGateway(log, { resource: target, auth: target }, '/nonexistent-dashboard');
    try {
      const made = await gateway.inject({ url: '/api/items' });
      expect(made.headers['x-request-id']).toBe(seen[0]);
      expect(seen[0]).toMatch(/^[0-9a-f-]{36}$/);
      const given = await gateway.inject({ url: '/auth/x', headers: { 'x-request-id': 'from-client' } });
      expect(given.headers['x-request-id']).toBe('from-client');
      expect(seen[1]).toBe('from-client');
      // Not a usable id (too long, spaces): a new one.
      await gateway.inject({ url: '/api/items', headers: { 'x-request-id': `bad id ${'x'.repeat(200)}` } });
      expect(seen[2]).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await gateway.close();
      upstream.close();
    }
    expect(lines).toEqual([]);
  });
});
