import { loadEnv } from '@beckon/server/env';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { Browser } from './browser';
import { isConsentPage, isSignInPage, startOAuthServer, ThirdPartyClient } from './flow';

let server: TestServer;
let client: ThirdPartyClient;

beforeAll(async () => {
  server = await startOAuthServer({ DEV_LOGIN_ENABLED: 'true' });
  client = await ThirdPartyClient.register(server.authDeps.env.ISSUER_URL, { public: true });
});
afterAll(async () => {
  await server?.close();
});

it('signs in any email unverified and grants consent without a prompt', async () => {
  const browser = new Browser();
  const request = await client.authorizationRequest();
  const page = await browser.follow(request.url, client.isRedirect);
  expect(isSignInPage(page)).toBe(true);
  expect(page.body).toContain('Sign in without verification');

  const back = await browser.submit(page, '/dev-login', { email: 'Dev@Example.test' }, client.isRedirect);
  expect(back.stoppedAt).toBeDefined();
  const tokens = await client.exchange(
    client.callback(String(back.stoppedAt), request.state),
    request.verifier,
  );
  const me = await server.resource.as(tokens.access_token).get('/api/me');
  const [user] = await server.database.sql<
    { id: string }[]
  >`select id from users where email = 'dev@example.test'`;
  expect(me.body).toMatchObject({ user_id: user?.id, client_id: client.client.client_id, role: 'owner' });
  const [audit] = await server.database.sql<{ data: { method: string } }[]>`
    select data from audit_entries where action = 'auth.sign_in' and actor_id = ${user?.id ?? null}`;
  expect(audit?.data.method).toBe('dev_login');

  // Signed in and first-party: the next authorization comes straight back.
  const again = await client.authorizationRequest();
  const direct = await browser.follow(again.url, client.isRedirect);
  expect(isConsentPage(direct)).toBe(false);
  expect(client.callback(String(direct.stoppedAt), again.state).get('code')).toEqual(expect.any(String));
});

it('has no development sign-in unless DEV_LOGIN_ENABLED, and refuses it in production', async () => {
  const off = await startOAuthServer();
  try {
    const uid = 'any';
    const response = await off.auth.post(`/oauth/interaction/${uid}/dev-login`, 'email=a%40b.test', {
      raw: true,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(404);
  } finally {
    await off.close();
  }
  expect(() =>
    loadEnv({ NODE_ENV: 'production', DEV_LOGIN_ENABLED: 'true', OAUTH_SIGNING_KEY: 'k'.repeat(32) }),
  ).toThrow(/DEV_LOGIN_ENABLED/);
});
