import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness';
import { startOAuthServer } from '../oauth/flow';

let server: TestServer;
const others: TestServer[] = [];

beforeAll(async () => {
  server = await startOAuthServer({
    RATE_LIMIT_SIGN_IN: '3/15m',
    RATE_LIMIT_VERIFY: '2/15m',
    RATE_LIMIT_TOKEN: '2/15m',
    RATE_LIMIT_REGISTER: '2/1h',
  });
});
afterAll(async () => {
  for (const other of others) await other.close();
  await server?.close();
});

const email = () => `limit-${randomUUID().slice(0, 8)}@example.test`;
/** A client address of its own (the test client is on loopback, which TRUST_PROXY trusts by default). */
let lastAddress = 0;
const from = () => ({ 'x-forwarded-for': `203.0.113.${++lastAddress}` });
const limitedBody = { error: 'rate limited', code: 'rate_limited' };

describe('per-client-address limits of the authorization process', () => {
  it('limits magic links per address whatever the email, over REST and tRPC, before anything is stored', async () => {
    const headers = from();
    for (let i = 3; i > 0; i--) {
      const ok = await server.auth.post('/auth/magic-link', { email: email() }, { headers });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('ratelimit-policy')).toBe('"sign_in";q=3;w=900');
      expect(ok.headers.get('ratelimit')).toMatch(new RegExp(`^"sign_in";r=${i - 1};t=\\d+$`));
      expect(ok.headers.get('ratelimit-remaining')).toBeNull();
    }
    const address = email();
    const refused = await server.auth.post('/auth/magic-link', { email: address }, { headers });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(limitedBody);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit')).toMatch(/^"sign_in";r=0;t=\d+$/);
    expect(refused.headers.get('ratelimit-limit')).toBe('3');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    const [stored] = await server.database.sql<{ n: number }[]>`
      select count(*)::int as n from magic_link_tokens where email = ${address}`;
    expect(stored!.n).toBe(0);

    const trpc = await server.auth.post<{ error: { data: { httpStatus: number; body: unknown } } }>(
      '/auth/trpc/accounts.requestMagicLink',
      { email: email() },
      { headers },
    );
    expect(trpc.status).toBe(429);
    expect(trpc.body.error.data).toMatchObject({ httpStatus: 429, body: limitedBody });
    // Another address is not affected.
    expect((await server.auth.post('/auth/magic-link', { email: email() }, { headers: from() })).status).toBe(
      200,
    );
  });

  it('limits guesses at sign-in links and invitation codes', async () => {
    const headers = from();
    expect((await server.auth.get('/auth/verify?token=guess-1', { headers })).status).toBe(400);
    expect((await server.auth.get('/auth/invitations/guess-2', { headers })).status).toBe(404);
    const refused = await server.auth.get('/auth/verify?token=guess-3', { headers });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(limitedBody);
    expect((await server.auth.get('/auth/invitations/guess-4', { headers })).status).toBe(429);
    // A tRPC batch counts each of its calls: two here, the whole window.
    const other = from();
    const input = encodeURIComponent(JSON.stringify({ 0: { token: 'x' }, 1: { code: 'y' } }));
    const batch = await server.auth.get<unknown[]>(
      `/auth/trpc/accounts.verifyMagicLink,accounts.previewInvitation?batch=1&input=${input}`,
      { headers: other },
    );
    expect(batch.status).toBe(400);
    expect(batch.headers.get('ratelimit')).toMatch(/^"verify";r=0;/);
    expect((await server.auth.get('/auth/verify?token=x', { headers: other })).status).toBe(429);
  });

  it('limits OAuth client registration and the token endpoint', async () => {
    const headers = { ...from(), 'content-type': 'application/json' };
    const registration = {
      redirect_uris: ['http://127.0.0.1:4999/callback'],
      token_endpoint_auth_method: 'none',
    };
    for (let i = 0; i < 2; i++) {
      expect((await server.auth.post('/oauth/register', registration, { headers })).status).toBe(201);
    }
    const refused = await server.auth.post('/oauth/register', registration, { headers });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(limitedBody);
    expect(refused.headers.get('ratelimit-policy')).toBe('"register";q=2;w=3600');

    const form = { ...from(), 'content-type': 'application/x-www-form-urlencoded' };
    const grant = 'grant_type=authorization_code&code=guess&client_id=nobody';
    for (let i = 0; i < 2; i++) {
      const answer = await server.auth.post('/oauth/token', grant, { headers: form, raw: true });
      expect(answer.status).toBe(401);
      expect(answer.headers.get('ratelimit-policy')).toBe('"token";q=2;w=900');
    }
    expect((await server.auth.post('/oauth/token', grant, { headers: form, raw: true })).status).toBe(429);
  });
});

describe('client addresses', () => {
  it('ignores X-Forwarded-For from peers TRUST_PROXY does not name', async () => {
    const strict = await startTestServer({ env: { TRUST_PROXY: 'false', RATE_LIMIT_VERIFY: '2/15m' } });
    others.push(strict);
    // Every request claims another address; all come from 127.0.0.1, which is what counts.
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await strict.auth.get('/auth/verify?token=x', { headers: from() })).status);
    expect(statuses).toEqual([400, 400, 429]);
  });

  it('turns every limit off with RATE_LIMIT_ENABLED=false', async () => {
    const open = await startTestServer({
      env: { RATE_LIMIT_ENABLED: 'false', RATE_LIMIT_VERIFY: '1/15m', RATE_LIMIT_API: '1/1m' },
    });
    others.push(open);
    for (let i = 0; i < 3; i++) {
      const answer = await open.auth.get('/auth/verify?token=x');
      expect(answer.status).toBe(400);
      expect(answer.headers.get('ratelimit-policy')).toBeNull();
      expect((await open.resource.get('/api/me')).status).toBe(401);
    }
  });
});
