import { randomUUID } from 'node:crypto';
import { manualClock } from '@beckon/server/clock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, planLimitBody, startTestServer, type TestServer } from '../harness';
import { DAY } from './helpers';

type Agent = { id: string; name: string; active_keys: number };
type CreatedKey = { id: string; key: string; agent_id: string; expires_at: string };

const clock = manualClock();
let server: TestServer;
let f: Factories;

beforeAll(async () => {
  server = await startTestServer({ clock });
  f = new Factories(server.database.db);
});
afterAll(() => server?.close());

/** An organization on the Team plan (10 agents), its owner on both processes, and one agent. */
async function teamOwner() {
  const account = await f.account('owner');
  await server.database.sql`
    update subscriptions set plan_id = (select id from plans where code = 'team') where org_id = ${account.org.id}`;
  const admin = server.resource.as(account.token);
  const agent = (await admin.post<Agent>('/api/admin/agents', { name: 'deploy-bot' })).body;
  return { ...account, admin, auth: server.auth.as(account.token), agent };
}

const createKey = (auth: HttpClient, agentId: string, extra: Record<string, unknown> = {}) =>
  auth.post<CreatedKey>('/auth/api-keys', { agent_id: agentId, label: 'ci', expires_in_days: 30, ...extra });

describe('agents', () => {
  it('POST /api/admin/agents needs agents.manage and lists what it creates', async () => {
    const { admin, agent, org, user } = await teamOwner();
    expect(agent).toMatchObject({ name: 'deploy-bot', created_by: user.id, active_keys: 0 });
    const list = await admin.get<Agent[]>('/api/admin/agents');
    expect(list.body.map((a) => a.id)).toEqual([agent.id]);

    const member = await f.user();
    await f.member(org.id, member.id, 'member');
    const asMember = server.resource.as((await f.session(member.id, org.id)).token);
    const denied = await asMember.post('/api/admin/agents', { name: 'x' });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'agents.manage',
    });
    expect((await asMember.get('/api/admin/agents')).status).toBe(403);
  });

  it('stops at the plan limit with the specified 402 body (Free: 1 agent)', async () => {
    const account = await f.account('owner');
    const admin = server.resource.as(account.token);
    expect((await admin.post('/api/admin/agents', { name: 'one' })).status).toBe(201);
    const over = await admin.post('/api/admin/agents', { name: 'two' });
    expect(over.status).toBe(402);
    expect(over.body).toEqual(planLimitBody('agents', 1, 1));
    expect((await admin.get<Agent[]>('/api/admin/agents')).body).toHaveLength(1);
  });

  it('counts concurrent creations exactly', async () => {
    const account = await f.account('owner');
    const admin = server.resource.as(account.token);
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) => admin.post('/api/admin/agents', { name: `a${i}` })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 402, 402, 402]);
  });

  it('validates input', async () => {
    const { admin } = await teamOwner();
    const res = await admin.post<{ fields: Record<string, string> }>('/api/admin/agents', { name: '', x: 1 });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.fields).sort()).toEqual(['name', 'x']);
  });
});

describe('API keys', () => {
  it('are created once, act as their agent with items permissions only', async () => {
    const { auth, agent, org, user } = await teamOwner();
    const created = await createKey(auth, agent.id);
    expect(created.status).toBe(201);
    // The organization, then the secret (auth/tokens.ts): found by organization and hash.
    expect(created.body.key).toMatch(/^bk_[A-Za-z0-9_-]{22}_[A-Za-z0-9_-]{43}$/);
    const me = await server.resource.as(created.body.key).get('/api/me');
    expect(me.body).toEqual({
      user_id: user.id,
      org_id: org.id,
      agent_id: agent.id,
      source: 'api_key',
      role: 'owner',
      permissions: ['items.read', 'items.write', 'items.archive'],
    });
    const [row] = await server.database.sql<{ token_hash: string; expires_at: Date }[]>`
      select token_hash, expires_at from api_keys where id = ${created.body.id}`;
    expect(row!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row!.expires_at.getTime() - clock().getTime()).toBeGreaterThan(30 * DAY - 60_000);
  });

  it('GET /auth/api-keys never shows a key or its hash', async () => {
    const { auth, agent } = await teamOwner();
    const created = (await createKey(auth, agent.id)).body;
    const list = await auth.get<Array<Record<string, unknown>>>('/auth/api-keys');
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      expect.objectContaining({
        id: created.id,
        agent_id: agent.id,
        agent_name: 'deploy-bot',
        label: 'ci',
        revoked_at: null,
      }),
    ]);
    const [row] = await server.database.sql<
      { token_hash: string }[]
    >`select token_hash from api_keys where id = ${created.id}`;
    expect(list.text).not.toContain(created.key);
    expect(list.text).not.toContain(row!.token_hash);
    expect(Object.keys(list.body[0]!)).not.toContain('key');
  });

  it('a revoked key fails on the very next request', async () => {
    const { auth, agent } = await teamOwner();
    const created = (await createKey(auth, agent.id)).body;
    const asAgent = server.resource.as(created.key);
    expect((await asAgent.get('/api/me')).status).toBe(200);
    const revoked = await auth.post<{ revoked_at: string }>('/auth/api-keys/revoke', { key_id: created.id });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toEqual(expect.any(String));
    // No waiting: the revocation answers once the resource process has dropped the key.
    expect((await asAgent.get('/api/me')).status).toBe(401);
    expect((await asAgent.get('/api/items')).status).toBe(401);
    // Revoking again keeps the first timestamp.
    const again = await auth.post<{ revoked_at: string }>('/auth/api-keys/revoke', { key_id: created.id });
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
    const actions = await server.database.sql<{ action: string }[]>`
      select action from audit_entries where data->>'key_id' = ${created.id} order by id`;
    expect(actions.map((a) => a.action)).toEqual(['api_key.create', 'api_key.revoke', 'api_key.revoke']);
  });

  it('expires after expires_in_days (moving the clock)', async () => {
    const { auth, agent } = await teamOwner();
    const created = (await createKey(auth, agent.id, { expires_in_days: 1 })).body;
    const asAgent = server.resource.as(created.key);
    expect((await asAgent.get('/api/me')).status).toBe(200);
    clock.advance(DAY + 1000);
    expect((await asAgent.get('/api/me')).status).toBe(401);
  });

  it('an agent key cannot call admin or account endpoints', async () => {
    const { auth, agent } = await teamOwner();
    const key = (await createKey(auth, agent.id)).body.key;
    const denied = await server.resource.as(key).get('/api/admin/agents');
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'agents.manage',
    });
    const invite = await server.resource
      .as(key)
      .post('/api/admin/invitations', { kind: 'link', role_id: randomUUID() });
    expect(invite.body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'users.invite',
    });
    expect(
      (await server.auth.as(key).post('/auth/api-keys', { agent_id: agent.id, label: 'x' })).status,
    ).toBe(403);
    expect((await server.auth.as(key).get('/auth/api-keys')).status).toBe(403);
  });

  it("follows its owner's role: a demoted owner's key loses write access", async () => {
    const { auth, agent, org, user } = await teamOwner();
    const key = (await createKey(auth, agent.id)).body.key;
    await server.database.sql`
      update memberships set role_id = (select id from roles where org_id is null and name = 'viewer')
       where org_id = ${org.id} and user_id = ${user.id}`;
    await server.syncIdentities();
    const me = await server.resource.as(key).get<{ permissions: string[] }>('/api/me');
    expect(me.body.permissions).toEqual(['items.read']);
  });

  it("needs agents.manage, refuses another organization's agent or key (404)", async () => {
    const { auth, agent, org } = await teamOwner();
    const other = await teamOwner();
    expect((await createKey(auth, other.agent.id)).status).toBe(404);
    const foreignKey = (await createKey(other.auth, other.agent.id)).body;
    expect((await auth.post('/auth/api-keys/revoke', { key_id: foreignKey.id })).status).toBe(404);
    expect((await server.resource.as(foreignKey.key).get('/api/me')).status).toBe(200);

    const member = await f.user();
    await f.member(org.id, member.id, 'member');
    const asMember = server.auth.as((await f.session(member.id, org.id)).token);
    const denied = await createKey(asMember, agent.id);
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'agents.manage',
    });
  });

  it('validates the body', async () => {
    const { auth, agent } = await teamOwner();
    const res = await auth.post<{ fields: Record<string, string> }>('/auth/api-keys', {
      agent_id: agent.id,
      label: '',
      expires_in_days: 0,
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.fields).sort()).toEqual(['expires_in_days', 'label']);
  });
});

describe("API keys restricted to their agent's items", () => {
  type Item = { id: string; title: string; agent_id: string | null };
  it('reach only the items their own agent created, on every item route; organization-wide stays the default', async () => {
    const { admin, auth, agent } = await teamOwner();
    const other = (await admin.post<Agent>('/api/admin/agents', { name: 'other-bot' })).body;
    const wide = (await createKey(auth, agent.id)).body;
    expect(wide).toMatchObject({ item_access: 'organization' });
    const own = (await createKey(auth, agent.id, { item_access: 'own' })).body;
    expect(own).toMatchObject({ item_access: 'own' });
    const otherKey = (await createKey(auth, other.id)).body;
    expect((await createKey(auth, agent.id, { item_access: 'mine' })).status).toBe(400);

    const mine = server.resource.as(own.key);
    const ours = (await mine.post<Item>('/api/items', { title: 'mine', form: FORM })).body;
    expect(ours.agent_id).toBe(agent.id);
    const theirs = (
      await server.resource.as(otherKey.key).post<Item>('/api/items', { title: 'theirs', form: FORM })
    ).body;
    const person = (await admin.post<Item>('/api/items', { title: "a person's", form: FORM })).body;

    const listed = (await mine.get<{ items: Item[] }>('/api/items')).body.items.map((i) => i.title);
    expect(listed).toEqual(['mine']);
    for (const foreign of [theirs, person]) {
      expect((await mine.get(`/api/items/${foreign.id}`)).status).toBe(404);
      expect((await mine.post(`/api/items/${foreign.id}/answer`, { values: { ok: true } })).status).toBe(404);
      expect((await mine.post(`/api/items/${foreign.id}/dismiss`)).status).toBe(404);
      expect((await mine.patch(`/api/items/${foreign.id}`, { title: 'changed' })).status).toBe(404);
      expect((await mine.get(`/api/items/${foreign.id}/comments`)).status).toBe(404);
    }
    expect((await mine.post(`/api/items/${ours.id}/answer`, { values: { ok: true } })).status).toBe(200);
    expect((await mine.get<{ total: number }>('/api/stats')).body.total).toBe(1);
    // The organization-wide key of the same agent still reaches every item.
    const everything = (await server.resource.as(wide.key).get<{ items: Item[] }>('/api/items')).body.items;
    expect(everything.map((i) => i.title).sort()).toEqual(["a person's", 'mine', 'theirs']);
    const listedKeys = (await auth.get<Array<{ id: string; item_access: string }>>('/auth/api-keys')).body;
    expect(listedKeys.find((k) => k.id === own.id)?.item_access).toBe('own');
  });
});

const FORM = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?' }] };
