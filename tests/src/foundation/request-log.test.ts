import { createBaseApp } from '@beckon/server/http/common';
import { buildGateway } from '@beckon/server/http/gateway';
import { redactUrl } from '@beckon/server/http/log-redaction';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness';

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
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
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
    // The forwarded requests were logged (with the upstream they went to), redacted.
    expect(logged).toContain('/invite/[redacted]');
    expect(logged).toContain('"source":"/auth/invitations/[redacted]"');
    expect(logged).not.toContain('SECRET');
  });
});
