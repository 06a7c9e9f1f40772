import { randomUUID } from 'node:crypto';
import { manualClock } from '@beckon/server/clock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';
import { mailText, startSmtpServer } from '../harness/smtp';
import { type Grant, MINUTE, signInByMagicLink } from './helpers';

const clock = manualClock();
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let mailing: TestServer;

beforeAll(async () => {
  smtp = await startSmtpServer();
  [server, mailing] = await Promise.all([
    startTestServer({ clock }),
    startTestServer({
      env: { SMTP_HOST: '127.0.0.1', SMTP_PORT: String(smtp.port), APP_URL: 'http://app.test' },
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([server?.close(), mailing?.close()]);
  await smtp?.close();
});

const email = () => `person-${randomUUID().slice(0, 8)}@Example.test`;

async function requestToken(address: string, orgId?: string) {
  const res = await server.auth.post<{ message: string; token: string }>('/auth/magic-link', {
    email: address,
    ...(orgId ? { org_id: orgId } : {}),
  });
  expect(res.status).toBe(200);
  return res.body.token;
}

describe('POST /auth/magic-link', () => {
  it('answers 200 with the same message for known and unknown addresses', async () => {
    const known = await new Factories(server.database.db).user();
    const a = await server.auth.post<Record<string, unknown>>('/auth/magic-link', { email: known.email });
    const b = await server.auth.post<Record<string, unknown>>('/auth/magic-link', { email: email() });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.message).toBe(b.body.message);
    expect(Object.keys(a.body).sort()).toEqual(Object.keys(b.body).sort());
  });

  it('returns the token in development mode (SMTP_HOST unset) and stores only its hash', async () => {
    const token = await requestToken(email());
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const rows = await server.database.sql`select 1 from magic_link_tokens where token_hash = ${token}`;
    expect(rows).toHaveLength(0);
  });

  it('answers 200 for an unknown org_id too', async () => {
    const res = await server.auth.post('/auth/magic-link', { email: email(), org_id: randomUUID() });
    expect(res.status).toBe(200);
  });

  it('answers a malformed address with the same 200 and sends nothing; refuses unknown fields', async () => {
    const same = await server.auth.post<{ message: string; token?: string }>('/auth/magic-link', {
      email: 'nope',
    });
    expect(same.status).toBe(200);
    expect(same.body).toEqual({ message: 'If the address can receive mail, a sign-in link is on its way.' });
    expect(await server.database.sql`select 1 from magic_link_tokens where email = 'nope'`).toHaveLength(0);
    expect((await server.auth.post('/auth/magic-link', { email: 42 })).status).toBe(400);
    const extra = await server.auth.post<{ fields: Record<string, string> }>('/auth/magic-link', {
      email: email(),
      admin: true,
    });
    expect(extra.status).toBe(400);
    expect(extra.body.fields.admin).toBe('unknown field');
  });
});

describe('GET /auth/verify', () => {
  it('signs a new person in: user, personal workspace on Free, session, audit entry', async () => {
    const address = email();
    const grant = (await server.auth.get<Grant>(`/auth/verify?token=${await requestToken(address)}`)).body;
    expect(grant).toMatchObject({
      token: expect.any(String),
      user_id: expect.any(String),
      org_id: expect.any(String),
    });

    const [org] = await server.database.sql<
      { is_personal: boolean; plan: string; role: string; email: string }[]
    >`
      select o.is_personal, p.code as plan, r.name as role, u.email
        from organizations o join subscriptions s on s.org_id = o.id join plans p on p.id = s.plan_id
        join memberships m on m.org_id = o.id join roles r on r.id = m.role_id join users u on u.id = m.user_id
       where o.id = ${grant.org_id} and m.user_id = ${grant.user_id}`;
    expect(org).toEqual({ is_personal: true, plan: 'free', role: 'owner', email: address.toLowerCase() });

    const me = await server.auth.as(grant.token).get<Record<string, unknown>>('/auth/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      user_id: grant.user_id,
      org_id: grant.org_id,
      agent_id: null,
      source: 'session',
      role: 'owner',
      user: { id: grant.user_id, email: address.toLowerCase() },
      org: { id: grant.org_id },
    });
    expect((await server.resource.as(grant.token).get('/api/me')).status).toBe(200);

    const audit = await server.database.sql<
      { action: string; data: { method: string; new_user: boolean } }[]
    >`
      select action, data from audit_entries where org_id = ${grant.org_id}`;
    expect(audit).toEqual([{ action: 'auth.sign_in', data: { method: 'magic_link', new_user: true } }]);
  });

  it('reaches the same user on a later sign-in, whatever the case of the address', async () => {
    const address = email();
    const first = await signInByMagicLink(server.auth, address);
    const second = await signInByMagicLink(server.auth, address.toUpperCase());
    expect(second.user_id).toBe(first.user_id);
    expect(second.org_id).toBe(first.org_id);
    const [memberships] = await server.database.sql<{ count: number }[]>`
      select count(*)::int as count from memberships where user_id = ${first.user_id}`;
    expect(memberships?.count).toBe(1);
  });

  it('works once: a second use is refused', async () => {
    const token = await requestToken(email());
    expect((await server.auth.get(`/auth/verify?token=${token}`)).status).toBe(200);
    const again = await server.auth.get<{ fields: Record<string, string> }>(`/auth/verify?token=${token}`);
    expect(again.status).toBe(400);
    expect(again.body.fields.token).toMatch(/already used/);
  });

  it('lets exactly one of two racing verifications through', async () => {
    const token = await requestToken(email());
    const results = await Promise.all(
      Array.from({ length: 4 }, () => server.auth.get(`/auth/verify?token=${token}`)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400]);
  });

  it('expires after 15 minutes (moving the clock)', async () => {
    const fresh = await requestToken(email());
    const stale = await requestToken(email());
    clock.advance(14 * MINUTE);
    expect((await server.auth.get(`/auth/verify?token=${fresh}`)).status).toBe(200);
    clock.advance(1 * MINUTE + 1000);
    expect((await server.auth.get(`/auth/verify?token=${stale}`)).status).toBe(400);
  });

  it('refuses unknown and missing tokens', async () => {
    expect((await server.auth.get('/auth/verify?token=nope')).status).toBe(400);
    expect((await server.auth.get('/auth/verify')).status).toBe(400);
  });

  it('scopes the session to org_id when the user is a member, else to the personal workspace', async () => {
    const f = new Factories(server.database.db);
    const address = email();
    const first = await signInByMagicLink(server.auth, address);
    const team = await f.org();
    await f.member(team.id, first.user_id, 'member');
    const foreign = await f.org();

    const inTeam = await signInByMagicLink(server.auth, address, team.id);
    expect(inTeam.org_id).toBe(team.id);
    const me = await server.auth.as(inTeam.token).get<{ role: string }>('/auth/me');
    expect(me.body.role).toBe('member');

    const notMember = await signInByMagicLink(server.auth, address, foreign.id);
    expect(notMember.org_id).toBe(first.org_id);
  });
});

describe('magic link by mail (real SMTP server)', () => {
  it('mails the link and does not return the token', async () => {
    const address = email();
    const res = await mailing.auth.post<Record<string, unknown>>('/auth/magic-link', { email: address });
    expect(res.status).toBe(200);
    expect(res.body.token).toBeUndefined();

    const mail = await smtp.waitForMail(address.toLowerCase());
    const text = mailText(mail.raw);
    expect(mail.raw).toMatch(/^Subject: Your Beckon sign-in link/m);
    const link = /http:\/\/app\.test\/verify\?token=([A-Za-z0-9_-]+)/.exec(text);
    expect(link, mail.raw).not.toBeNull();
    const verified = await mailing.auth.get<Grant>(`/auth/verify?token=${link![1]}`);
    expect(verified.status).toBe(200);
  });

  it('sends at most five links to one address in 15 minutes, then answers 429 whether or not it has an account', async () => {
    const address = email();
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await mailing.auth.post('/auth/magic-link', { email: address }));
    expect(answers.slice(0, 5).map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.slice(0, 5).map((a) => JSON.stringify(a.body))).size).toBe(1);
    for (const refused of answers.slice(5)) {
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ error: 'rate limited', code: 'rate_limited' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.headers.get('ratelimit-policy')).toBe('"sign_in_email";q=5;w=900');
    }
    const [stored] = await mailing.database.sql<{ n: number }[]>`
      select count(*)::int as n from magic_link_tokens where email = ${address.toLowerCase()}`;
    expect(stored!.n).toBe(5);
    // Each request answers after its mail was handed over: the five are all there.
    expect(smtp.messages.filter((m) => m.to.includes(address.toLowerCase()))).toHaveLength(5);
    // Another address is not affected; letter case does not make a new address.
    expect((await mailing.auth.post('/auth/magic-link', { email: email() })).status).toBe(200);
    expect((await mailing.auth.post('/auth/magic-link', { email: address.toUpperCase() })).status).toBe(429);
  });
});

describe('POST /auth/dev-login', () => {
  it('is a 404 unless DEV_LOGIN_ENABLED=true', async () => {
    const res = await server.auth.post('/auth/dev-login', { email: email() });
    expect(res.status).toBe(404);
  });

  it('signs in any address at once when enabled', async () => {
    const dev = await startTestServer({ env: { DEV_LOGIN_ENABLED: 'true' } });
    try {
      const res = await dev.auth.post<Grant>('/auth/dev-login', { email: 'dev@example.test' });
      expect(res.status).toBe(200);
      const me = await dev.auth.as(res.body.token).get<{ user: { email: string } }>('/auth/me');
      expect(me.body.user.email).toBe('dev@example.test');
      const [audit] = await dev.database.sql<{ data: { method: string } }[]>`
        select data from audit_entries where action = 'auth.sign_in'`;
      expect(audit?.data.method).toBe('dev_login');
    } finally {
      await dev.close();
    }
  });
});

describe('GET /auth/config', () => {
  it('tells a sign-in page which methods this deployment offers', async () => {
    expect((await server.auth.get('/auth/config')).body).toEqual({
      providers: [],
      magic_link: { mail: false },
      dev_login: false,
    });
    expect((await mailing.auth.get<{ magic_link: unknown }>('/auth/config')).body.magic_link).toEqual({
      mail: true,
    });
  });
});
