// Longer than 300 lines: the three providers' sign-in flows share the fakes and their setup.
import { randomInt, randomUUID } from 'node:crypto';
import { manualClock } from '@beckon/server/clock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpResponse, startTestServer, type TestServer } from '../harness';
import {
  type FakeAccount,
  type FakeIdp,
  type FakeProviders,
  type IdTokenTweaks,
  startFakeProviders,
} from '../harness/fake-providers';
import { type Grant, MINUTE, signInByMagicLink } from './helpers';

const APP_URL = 'http://app.test';
const ISSUER_URL = 'http://auth.test';
const IDPS: FakeIdp[] = ['idp_a', 'idp_b', 'idp_c'];

const clock = manualClock();
let fake: FakeProviders;
let uninstall: () => Promise<void>;
let server: TestServer;
/** idp_a configured with a secret the provider does not know; idp_b half configured; idp_c not at all. */
let misconfigured: TestServer;

beforeAll(async () => {
  fake = await startFakeProviders(clock);
  uninstall = fake.install();
  [server, misconfigured] = await Promise.all([
    startTestServer({ clock, env: { ...fake.env, APP_URL, ISSUER_URL } }),
    startTestServer({
      env: {
        APP_URL,
        ISSUER_URL,
        IDP_A_CLIENT_ID: fake.idpA.clientId,
        IDP_A_CLIENT_SECRET: 'not-the-secret',
        IDP_B_CLIENT_ID: fake.idpB.clientId,
      },
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([server?.close(), misconfigured?.close()]);
  await uninstall?.();
  await fake?.close();
});

const account = (over: Partial<FakeAccount> = {}): FakeAccount => ({
  id: String(randomInt(1, 2 ** 47)),
  email: `person-${randomUUID().slice(0, 8)}@Example.test`,
  emailVerified: true,
  name: 'Ada Lovelace',
  ...over,
});

type Started = { authorizationUrl: URL; cookie: string; setCookie: string };

/** GET /auth/oauth/<idp>: the redirect to the provider and the flow cookie. */
async function start(idp: FakeIdp, query = '', target = server): Promise<Started> {
  const res = await target.auth.get(`/auth/oauth/${idp}${query}`, { redirect: 'manual' });
  expect(res.status, res.text).toBe(302);
  const setCookie = res.headers.get('set-cookie') ?? '';
  return {
    authorizationUrl: new URL(res.headers.get('location') ?? ''),
    cookie: setCookie.split(';')[0] ?? '',
    setCookie,
  };
}

/** The browser coming back: a GET with a query, or idp_c's cross-site form POST. */
function callback(idp: FakeIdp, params: Record<string, string>, cookie?: string, target = server) {
  const path = `/auth/oauth/${idp}/callback`;
  const headers: Record<string, string> = cookie ? { cookie } : {};
  if (idp === 'idp_c') {
    return target.auth.post(path, new URLSearchParams(params).toString(), {
      raw: true,
      redirect: 'manual',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
    });
  }
  return target.auth.get(`${path}?${new URLSearchParams(params)}`, { redirect: 'manual', headers });
}

type Flow = Started & { params: Record<string, string> };

/** Starts a sign-in and consents at the provider; the callback is left to the test. */
async function authorized(
  idp: FakeIdp,
  who: FakeAccount,
  options: { query?: string; tweaks?: IdTokenTweaks } = {},
): Promise<Flow> {
  const started = await start(idp, options.query);
  const { redirectUri, params } = fake.authorize(started.authorizationUrl, who, options.tweaks);
  expect(redirectUri).toBe(`${ISSUER_URL}/auth/oauth/${idp}/callback`);
  return { ...started, params };
}

async function signIn(
  idp: FakeIdp,
  who: FakeAccount,
  options: { query?: string; tweaks?: IdTokenTweaks } = {},
) {
  const flow = await authorized(idp, who, options);
  return callback(idp, flow.params, flow.cookie);
}

/** The session handed to the dashboard in the Location fragment. */
function grantOf(res: HttpResponse): Grant {
  expect(res.status, res.text).toBe(302);
  const location = res.headers.get('location') ?? '';
  expect(location.startsWith(`${APP_URL}/auth/callback#`)).toBe(true);
  const fragment = new URLSearchParams(location.split('#')[1]);
  return {
    token: fragment.get('token') ?? '',
    user_id: fragment.get('user_id') ?? '',
    org_id: fragment.get('org_id') ?? '',
    expires_at: '',
  };
}

/** Rows a sign-in creates: a refused one must leave these unchanged. */
async function counts() {
  const [row] = await server.database.sql<{ users: number; links: number; sessions: number; orgs: number }[]>`
    select (select count(*)::int from users) as users, (select count(*)::int from identity_links) as links,
           (select count(*)::int from sessions) as sessions, (select count(*)::int from organizations) as orgs`;
  return row;
}

async function expectRefused(
  res: Promise<HttpResponse> | HttpResponse,
  error: string | RegExp,
  before: unknown,
) {
  const answer = await res;
  expect(answer.status, answer.text).toBe(400);
  expect(answer.headers.get('content-type')).toContain('application/json');
  expect((answer.body as { error: string }).error).toMatch(error);
  // The flow is over either way: its cookie is cleared.
  expect(answer.headers.get('set-cookie')).toMatch(/^beckon_flow_idp_[abc]=;.*Max-Age=0/);
  expect(await counts()).toEqual(before);
}

/** A state whose payload was edited but not re-signed. */
function tamper(state: string, change: Record<string, unknown>): string {
  const [payload, signature] = state.split('.') as [string, string];
  const edited = { ...JSON.parse(Buffer.from(payload, 'base64url').toString()), ...change };
  return `${Buffer.from(JSON.stringify(edited)).toString('base64url')}.${signature}`;
}

const TOKEN_REQUESTS: Record<FakeIdp, string[]> = {
  idp_a: [
    'POST github.com/login/oauth/access_token',
    'GET api.github.com/user',
    'GET api.github.com/user/emails',
  ],
  idp_b: ['POST oauth2.googleapis.com/token'],
  idp_c: ['POST appleid.apple.com/auth/token'],
};

describe.each(IDPS)('%s', (idp) => {
  it('first sign-in: user, personal workspace and identity link; the token works on both processes', async () => {
    const who = account();
    const seen = fake.received.length;
    const res = await signIn(idp, who);
    const grant = grantOf(res);
    expect(grant.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The flow cookie is spent.
    expect(res.headers.get('set-cookie')).toMatch(new RegExp(`^beckon_flow_${idp}=;.*Max-Age=0`));

    // arctic's real requests reached the fake, which checked the client's credentials.
    const requests = fake.received.slice(seen);
    expect(requests.map((r) => `${r.method} ${r.host}${r.path}`)).toEqual(
      expect.arrayContaining(TOKEN_REQUESTS[idp]),
    );
    expect(requests.find((r) => r.method === 'POST')?.verified).toBeTruthy();

    const sql = server.database.sql;
    const [user] = await sql<{ id: string; email: string; name: string | null }[]>`
      select id, email, name from users where id = ${grant.user_id}`;
    expect(user).toEqual({ id: grant.user_id, email: who.email?.toLowerCase(), name: 'Ada Lovelace' });
    const [org] = await sql<{ is_personal: boolean; role: string }[]>`
      select o.is_personal, r.name as role from organizations o
        join memberships m on m.org_id = o.id join roles r on r.id = m.role_id
       where o.id = ${grant.org_id} and m.user_id = ${grant.user_id}`;
    expect(org).toEqual({ is_personal: true, role: 'owner' });
    const links = await sql`select user_id, email from identity_links
                             where provider = ${idp} and provider_user_id = ${who.id}`;
    expect(links).toEqual([{ user_id: grant.user_id, email: who.email?.toLowerCase() }]);
    const [session] = await sql`select origin from sessions where user_id = ${grant.user_id}`;
    expect(session?.origin).toBe(idp);
    const [audit] = await sql<{ data: Record<string, unknown> }[]>`
      select data from audit_entries where org_id = ${grant.org_id} and action = 'auth.sign_in'`;
    expect(audit?.data).toMatchObject({ method: idp, new_user: true, provider_account: who.id });

    const me = await server.auth.get<{ user: { id: string; email: string } }>('/auth/me', {
      token: grant.token,
    });
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ id: grant.user_id, email: who.email?.toLowerCase() });
    const api = await server.resource.get<{ user_id: string; org_id: string }>('/api/me', {
      token: grant.token,
    });
    expect(api.status).toBe(200);
    expect(api.body).toMatchObject({ user_id: grant.user_id, org_id: grant.org_id, source: 'session' });
  });

  it("hands the dashboard's client_state back with the session, and refuses a malformed one", async () => {
    const nonce = 'dashboard-nonce-0123456789';
    const res = await signIn(idp, account(), { query: `?client_state=${nonce}` });
    const fragment = new URLSearchParams((res.headers.get('location') ?? '').split('#')[1]);
    expect(fragment.get('client_state')).toBe(nonce);
    expect(grantOf(res).token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Without one, none comes back.
    const plain = await signIn(idp, account());
    expect(new URLSearchParams((plain.headers.get('location') ?? '').split('#')[1]).has('client_state')).toBe(
      false,
    );
    const bad = await server.auth.get(`/auth/oauth/${idp}?client_state=short`, { redirect: 'manual' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { client_state: expect.any(String) },
    });
  });

  it('a second sign-in with the same account reaches the same user, even under a new email', async () => {
    const who = account();
    const first = grantOf(await signIn(idp, who));
    const second = grantOf(
      await signIn(idp, { ...who, email: `renamed-${randomUUID().slice(0, 8)}@example.test` }),
    );
    expect(second.user_id).toBe(first.user_id);
    expect(second.org_id).toBe(first.org_id);
    expect(second.token).not.toBe(first.token);
    const users = await server.database.sql`select 1 from users where lower(email) like 'renamed-%'`;
    expect(users).toHaveLength(0);
    const links = await server.database.sql`select 1 from identity_links where provider_user_id = ${who.id}`;
    expect(links).toHaveLength(1);
  });

  it('links an account to the existing user with its verified email, honouring org_id', async () => {
    const email = `member-${randomUUID().slice(0, 8)}@example.test`;
    const magic = await signInByMagicLink(server.auth, email);
    const team = await server.auth.post<{ id: string }>(
      '/auth/orgs',
      { name: 'Team' },
      { token: magic.token },
    );
    expect(team.status).toBe(201);
    const grant = grantOf(await signIn(idp, account({ email }), { query: `?org_id=${team.body.id}` }));
    expect(grant).toMatchObject({ user_id: magic.user_id, org_id: team.body.id });
    // An organization the user is not in: the personal workspace instead.
    const other = grantOf(await signIn(idp, account(), { query: `?org_id=${team.body.id}` }));
    expect(other.org_id).not.toBe(team.body.id);
  });

  it('refuses a tampered state with 400, before asking the provider, and creates nothing', async () => {
    const flow = await authorized(idp, account());
    const before = await counts();
    const seen = fake.received.length;
    const { state = '' } = flow.params;
    for (const forged of [
      tamper(state, { org_id: randomUUID() }),
      tamper(state, { exp: Math.floor(clock().getTime() / 1000) + 3600 }),
      `${state.slice(0, -4)}AAAA`,
      state.split('.')[0] ?? '',
      'not-a-state',
    ]) {
      await expectRefused(
        callback(idp, { ...flow.params, state: forged }, flow.cookie),
        'invalid state',
        before,
      );
    }
    await expectRefused(
      callback(idp, { code: flow.params.code ?? '' }, flow.cookie),
      'invalid state',
      before,
    );
    expect(fake.received.length).toBe(seen);
  });

  it("refuses a callback without the flow cookie, or with another flow's", async () => {
    const flow = await authorized(idp, account());
    const other = await start(idp);
    const before = await counts();
    await expectRefused(callback(idp, flow.params), 'state not started in this browser', before);
    await expectRefused(
      callback(idp, flow.params, other.cookie),
      'state not started in this browser',
      before,
    );
  });

  it("refuses another provider's state", async () => {
    const elsewhere = IDPS.find((i) => i !== idp) ?? 'idp_a';
    const foreign = await authorized(elsewhere, account());
    // Even carrying that flow's nonce under this provider's cookie name.
    const nonce = foreign.cookie.split('=')[1];
    const before = await counts();
    await expectRefused(
      callback(idp, foreign.params, `beckon_flow_${idp}=${nonce}`),
      'invalid state',
      before,
    );
  });

  it('refuses a state older than 10 minutes', async () => {
    const flow = await authorized(idp, account());
    clock.advance(10 * MINUTE + 1000);
    await expectRefused(callback(idp, flow.params, flow.cookie), 'invalid state', await counts());
  });

  it('refuses a code the provider does not know, or one already used', async () => {
    const before = await counts();
    const flow = await authorized(idp, account());
    await expectRefused(
      callback(idp, { ...flow.params, code: 'code-never-issued' }, flow.cookie),
      'provider refused the code',
      before,
    );
    // A code is good once: replaying a completed callback is refused by the provider.
    const used = await authorized(idp, account());
    grantOf(await callback(idp, used.params, used.cookie));
    const after = await counts();
    await expectRefused(callback(idp, used.params, used.cookie), 'provider refused the code', after);
  });

  it('refuses an account whose email the provider has not verified, creating nothing', async () => {
    const before = await counts();
    await expectRefused(signIn(idp, account({ emailVerified: false })), 'no verified email', before);
    if (idp !== 'idp_b') {
      await expectRefused(signIn(idp, account({ email: null })), 'no verified email', before);
    }
  });

  it('sends a user who cancelled at the provider back to the login page', async () => {
    const started = await start(idp);
    const { params } = fake.deny(started.authorizationUrl);
    const res = await callback(idp, params, started.cookie);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${APP_URL}/login?error=access_denied`);
  });

  it('refuses any other provider error, and a callback without a code', async () => {
    const flow = await authorized(idp, account());
    const before = await counts();
    await expectRefused(
      callback(idp, { error: 'server_error', state: flow.params.state ?? '' }, flow.cookie),
      'provider error',
      before,
    );
    await expectRefused(
      callback(idp, { state: flow.params.state ?? '' }, flow.cookie),
      'missing code',
      before,
    );
  });

  it('refuses a malformed org_id when starting', async () => {
    const res = await server.auth.get(`/auth/oauth/${idp}?org_id=not-a-uuid`, { redirect: 'manual' });
    expect(res.status).toBe(400);
  });
});

describe('sign-in from an OAuth authorization (return_to)', () => {
  it('goes back to the interaction with the browser signed in, not to the dashboard', async () => {
    const res = await signIn('idp_a', account(), { query: '?return_to=/oauth/interaction/abc_123' });
    expect(res.status, res.text).toBe(302);
    expect(res.headers.get('location')).toBe(`${ISSUER_URL}/oauth/interaction/abc_123`);
    // (Set-Cookie values arrive joined by the test's undici dispatcher.)
    const cookies = res.headers.get('set-cookie') ?? '';
    expect(cookies).toMatch(
      /beckon_browser_session=[0-9a-f-]{36}\.[A-Za-z0-9_-]+; Path=\/; Max-Age=\d+; HttpOnly/,
    );
    expect(cookies).toMatch(/beckon_flow_idp_a=; [^,]*Max-Age=0/);
  });

  it('refuses any other return address (no open redirect)', async () => {
    for (const target of [
      'https://evil.example/x',
      '//evil.example',
      '/auth/me',
      '/oauth/interaction/../../x',
    ]) {
      const res = await server.auth.get(`/auth/oauth/idp_a?return_to=${encodeURIComponent(target)}`, {
        redirect: 'manual',
      });
      expect(res.status, target).toBe(400);
    }
  });
});

describe('GET /auth/config', () => {
  it('lists exactly the providers whose variables are all set', async () => {
    const all = await server.auth.get<{ providers: string[] }>('/auth/config');
    expect(all.body.providers).toEqual(['idp_a', 'idp_b', 'idp_c']);
    const some = await misconfigured.auth.get<{ providers: string[] }>('/auth/config');
    expect(some.body.providers).toEqual(['idp_a']);
  });
});

describe('the start redirect', () => {
  it('idp_a: client id, redirect URI and scopes, a Lax HttpOnly cookie', async () => {
    const { authorizationUrl, setCookie } = await start('idp_a');
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(
      'https://github.com/login/oauth/authorize',
    );
    expect(authorizationUrl.searchParams.get('client_id')).toBe(fake.idpA.clientId);
    expect(authorizationUrl.searchParams.get('scope')).toBe('read:user user:email');
    expect(setCookie).toMatch(
      /^beckon_flow_idp_a=[\w-]{43}; Path=\/auth\/oauth\/idp_a; Max-Age=600; HttpOnly; SameSite=Lax$/,
    );
  });

  it('idp_b: PKCE S256 with the verifier kept out of the URL and the cookie', async () => {
    const { authorizationUrl, cookie } = await start('idp_b');
    expect(authorizationUrl.hostname).toBe('accounts.google.com');
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(authorizationUrl.searchParams.get('scope')).toBe('openid email profile');
    expect(authorizationUrl.searchParams.has('code_verifier')).toBe(false);
    expect(cookie.split('=')[1]).toMatch(/^[\w-]{43}$/);
  });

  it('idp_c: form_post, nonce and scopes, a SameSite=None; Secure cookie for the cross-site POST', async () => {
    const { authorizationUrl, setCookie } = await start('idp_c');
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(
      'https://appleid.apple.com/auth/authorize',
    );
    expect(authorizationUrl.searchParams.get('response_mode')).toBe('form_post');
    expect(authorizationUrl.searchParams.get('scope')).toBe('name email');
    expect(authorizationUrl.searchParams.get('nonce')).toBeTruthy();
    expect(setCookie).toContain('HttpOnly; SameSite=None; Secure');
  });
});

describe('idp_b ID token claims', () => {
  it.each([
    [{ aud: 'someone-else.apps.example' }, 'id_token audience mismatch'],
    [{ iss: 'https://accounts.evil.test' }, 'id_token issuer mismatch'],
  ])('refuses %o', async (tweaks, error) => {
    await expectRefused(signIn('idp_b', account(), { tweaks }), error, await counts());
  });

  it('refuses an expired ID token (the clock moved on between consent and callback)', async () => {
    const flow = await authorized('idp_b', account());
    clock.advance(6 * MINUTE);
    await expectRefused(callback('idp_b', flow.params, flow.cookie), 'id_token expired', await counts());
  });
});

describe('idp_c ID token verification', () => {
  it('refuses a token for another audience', async () => {
    const tweaks = { aud: 'com.someone.else' };
    await expectRefused(signIn('idp_c', account(), { tweaks }), 'id_token audience mismatch', await counts());
  });

  it('refuses an expired token (the clock moved on between consent and callback)', async () => {
    const flow = await authorized('idp_c', account());
    clock.advance(6 * MINUTE);
    await expectRefused(callback('idp_c', flow.params, flow.cookie), 'id_token expired', await counts());
  });

  it('refuses a token signed by a key the provider does not publish', async () => {
    const before = await counts();
    await expectRefused(
      signIn('idp_c', account(), { tweaks: { signer: 'unpublished-key' } }),
      'id_token signature invalid',
      before,
    );
    await expectRefused(
      signIn('idp_c', account(), { tweaks: { signer: 'unknown-kid' } }),
      'id_token signed by an unknown key',
      before,
    );
  });

  it('refuses a token carrying another nonce', async () => {
    const tweaks = { nonce: 'someone-elses-nonce' };
    await expectRefused(signIn('idp_c', account(), { tweaks }), 'id_token nonce mismatch', await counts());
  });

  it('keeps the key set between sign-ins', async () => {
    grantOf(await signIn('idp_c', account()));
    const fetched = fake.jwksFetches;
    expect(fetched).toBeGreaterThan(0);
    grantOf(await signIn('idp_c', account()));
    expect(fake.jwksFetches).toBe(fetched);
  });
});

describe('configuration', () => {
  it('a provider missing any variable answers 404 on both routes', async () => {
    for (const idp of ['idp_b', 'idp_c'] as const) {
      const begin = await misconfigured.auth.get(`/auth/oauth/${idp}`, { redirect: 'manual' });
      expect(begin.status).toBe(404);
      expect(begin.body).toEqual({ error: 'not found', code: 'not_found' });
      const back = await callback(idp, { code: 'x', state: 'y' }, undefined, misconfigured);
      expect(back.status).toBe(404);
      expect(back.body).toEqual({ error: 'not found', code: 'not_found' });
    }
  });

  it('a client secret the provider does not accept is a 400, not a session', async () => {
    const started = await start('idp_a', '', misconfigured);
    const { params } = fake.authorize(started.authorizationUrl, account());
    const res = await callback('idp_a', params, started.cookie, misconfigured);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'provider refused the code', code: 'sign_in_refused' });
  });
});
