import { randomUUID } from 'node:crypto';
import { manualClock } from '@beckon/server/clock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';
import { DAY, type Grant, signInByMagicLink } from './helpers';

const clock = manualClock();
let server: TestServer;
let f: Factories;

beforeAll(async () => {
  server = await startTestServer({ clock });
  f = new Factories(server.database.db);
});
afterAll(() => server?.close());

const signIn = () => signInByMagicLink(server.auth, `s-${randomUUID().slice(0, 8)}@example.test`);

describe('sessions', () => {
  it('are opaque and stored only as SHA-256 hashes', async () => {
    const grant = await signIn();
    const [row] = await server.database.sql<{ token_hash: string; origin: string }[]>`
      select token_hash, origin from sessions where user_id = ${grant.user_id}`;
    expect(row!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row!.token_hash).not.toContain(grant.token);
    expect(row!.origin).toBe('magic_link');
  });

  it('last 30 days on both processes (moving the clock)', async () => {
    const grant = await signIn();
    expect(Date.parse(grant.expires_at) - clock().getTime()).toBeGreaterThan(30 * DAY - 60_000);
    clock.advance(30 * DAY - 60_000);
    expect((await server.auth.as(grant.token).get('/auth/me')).status).toBe(200);
    expect((await server.resource.as(grant.token).get('/api/me')).status).toBe(200);
    clock.advance(61_000);
    expect((await server.auth.as(grant.token).get('/auth/me')).status).toBe(401);
    expect((await server.resource.as(grant.token).get('/api/me')).status).toBe(401);
  });

  it('POST /auth/logout revokes the current session at once, on both processes', async () => {
    const grant = await signIn();
    const other = await signInByMagicLink(server.auth, (await userEmail(grant.user_id)) as string);
    expect((await server.resource.as(grant.token).get('/api/me')).status).toBe(200);
    const out = await server.auth.as(grant.token).post('/auth/logout');
    expect(out.status).toBe(200);
    // No waiting: logout answers once the resource process has dropped the session.
    expect((await server.resource.as(grant.token).get('/api/me')).status).toBe(401);
    expect((await server.auth.as(grant.token).get('/auth/me')).status).toBe(401);
    // Only that session: the user's other session still works.
    expect((await server.auth.as(other.token).get('/auth/me')).status).toBe(200);
  });

  it('GET /auth/me without a valid token is a 401 with the challenge', async () => {
    const res = await server.auth.get('/auth/me');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'unauthorized' });
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="beckon", resource_metadata=/);
    expect((await server.auth.as('not-a-token').get('/auth/me')).status).toBe(401);
  });

  it('an API key cannot log out, create organizations or switch', async () => {
    const account = await f.account();
    const key = await f.apiKey(account.org.id, account.user.id);
    const agent = server.auth.as(key.token);
    for (const res of [
      await agent.post('/auth/logout'),
      await agent.post('/auth/orgs', { name: 'Agents Inc' }),
      await agent.post('/auth/switch-org', { org_id: account.org.id }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: "this operation needs a signed-in user's session" });
    }
    expect((await agent.get<{ source: string }>('/auth/me')).body.source).toBe('api_key');
  });
});

const userEmail = async (userId: string) =>
  (await server.database.sql<{ email: string }[]>`select email from users where id = ${userId}`)[0]?.email;

describe('organizations', () => {
  it('POST /auth/orgs makes the creator Owner, on the Free plan, and lists it', async () => {
    const grant = await signIn();
    const me = server.auth.as(grant.token);
    const created = await me.post<Record<string, unknown>>('/auth/orgs', {
      name: 'Acme Robotics',
      metadata: { tier: 'x' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Acme Robotics',
      slug: 'acme-robotics',
      metadata: { tier: 'x' },
      is_personal: false,
      role: 'owner',
    });
    const [sub] = await server.database.sql<{ plan: string }[]>`
      select p.code as plan from subscriptions s join plans p on p.id = s.plan_id where s.org_id = ${created.body.id as string}`;
    expect(sub!.plan).toBe('free');

    const again = await me.post<{ slug: string }>('/auth/orgs', { name: 'Acme Robotics' });
    expect(again.status).toBe(201);
    expect(again.body.slug).toMatch(/^acme-robotics-[0-9a-f]{6}$/);

    const list = await me.get<Array<{ id: string; is_personal: boolean; role: string }>>('/auth/orgs');
    expect(list.body.map((o) => o.id)).toEqual(
      expect.arrayContaining([grant.org_id, created.body.id, (again.body as { id?: string }).id]),
    );
    expect(list.body[0]).toMatchObject({ id: grant.org_id, is_personal: true });

    const audit = await server.database.sql`
      select 1 from audit_entries where org_id = ${created.body.id as string} and action = 'org.create'`;
    expect(audit).toHaveLength(1);
  });

  it('refuses a taken slug (409) and bad input (400)', async () => {
    const me = server.auth.as((await signIn()).token);
    expect((await me.post('/auth/orgs', { name: 'A', slug: 'taken-slug' })).status).toBe(201);
    const taken = await me.post('/auth/orgs', { name: 'B', slug: 'taken-slug' });
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({ error: 'slug already taken' });
    const bad = await me.post<{ fields: Record<string, string> }>('/auth/orgs', { name: '', slug: '-Bad-' });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.fields).sort()).toEqual(['name', 'slug']);
  });

  it('POST /auth/switch-org mints a session scoped to another organization of the user', async () => {
    const grant = await signIn();
    const me = server.auth.as(grant.token);
    const org = (await me.post<{ id: string }>('/auth/orgs', { name: 'Second' })).body;
    const switched = await me.post<Grant>('/auth/switch-org', { org_id: org.id });
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({ user_id: grant.user_id, org_id: org.id });
    expect(switched.body.token).not.toBe(grant.token);
    const there = await server.resource
      .as(switched.body.token)
      .get<{ org_id: string; role: string }>('/api/me');
    expect(there.body).toMatchObject({ org_id: org.id, role: 'owner' });
    // The old session keeps its own scope.
    expect((await me.get<{ org_id: string }>('/auth/me')).body.org_id).toBe(grant.org_id);
  });

  it('answers the calling session itself when asked to switch to its own organization (no new session)', async () => {
    const grant = await signIn();
    const me = server.auth.as(grant.token);
    const count = async () =>
      (
        await server.database.sql<{ n: number }[]>`
        select count(*)::int as n from sessions where user_id = ${grant.user_id}`
      )[0]!.n;
    const before = await count();
    for (let i = 0; i < 3; i++) {
      const same = await me.post<Grant>('/auth/switch-org', { org_id: grant.org_id });
      expect(same.status).toBe(200);
      expect(same.body).toEqual({
        token: grant.token,
        user_id: grant.user_id,
        org_id: grant.org_id,
        expires_at: grant.expires_at,
      });
    }
    expect(await count()).toBe(before);
  });

  it('refuses to switch to a foreign or unknown organization (404)', async () => {
    const me = server.auth.as((await signIn()).token);
    const foreign = await f.org();
    for (const orgId of [foreign.id, randomUUID()]) {
      const res = await me.post('/auth/switch-org', { org_id: orgId });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'not found' });
    }
    expect((await me.post('/auth/switch-org', { org_id: 'x' })).status).toBe(400);
  });
});

describe('GET /auth/openapi.json', () => {
  it('documents the account API of the authorization process', async () => {
    const doc = await server.auth.get<{
      servers: Array<{ url: string }>;
      paths: Record<string, Record<string, unknown>>;
    }>('/auth/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.servers[0]?.url).toBe('http://localhost:3001/auth');
    for (const path of [
      '/magic-link',
      '/verify',
      '/me',
      '/logout',
      '/orgs',
      '/switch-org',
      '/api-keys',
      '/api-keys/revoke',
    ]) {
      expect(doc.body.paths[path], path).toBeDefined();
    }
    expect(Object.keys(doc.body.paths['/invitations/{code}'] ?? {})).toEqual(['get']);
  });
});
