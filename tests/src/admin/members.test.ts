import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type SystemRole, startTestServer, type TestServer } from '../harness';

type Member = { user_id: string; email: string; role: { id: string; name: string; is_system: boolean } };
type Me = { role: string; permissions: string[] };

let server: TestServer;
let f: Factories;

beforeAll(async () => {
  server = await startTestServer();
  f = new Factories(server.database.db);
});
afterAll(() => server?.close());

/** An organization with an owner, colleagues to add, and the ids of the system roles. */
async function team() {
  const role = async (name: SystemRole) => (await f.systemRole(name)).id;
  return { ...(await f.team(server.resource)), role };
}

describe('members', () => {
  it("lists the organization's members with their roles (users.invite)", async () => {
    const { owner, join, user } = await team();
    const colleague = await join('member');
    const viewer = await join('viewer');
    const outsider = await f.account('owner');
    const list = await owner.get<Member[]>('/api/admin/users');
    expect(list.status).toBe(200);
    expect(list.body.map((m) => [m.user_id, m.role.name])).toEqual([
      [user.id, 'owner'],
      [colleague.id, 'member'],
      [viewer.id, 'viewer'],
    ]);
    expect(list.body.map((m) => m.user_id)).not.toContain(outsider.user.id);
    const denied = await viewer.api.get('/api/admin/users');
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'users.invite',
    });
  });

  it('changes a role, effective on the next request of every credential of the member', async () => {
    const { owner, join, role, org } = await team();
    const colleague = await join('member');
    const key = await f.apiKey(org.id, colleague.id);
    expect((await server.resource.as(key.token).get<Me>('/api/me')).body.permissions).toEqual([
      'items.read',
      'items.write',
      'items.archive',
    ]);
    const changed = await owner.post<Member>(`/api/admin/users/${colleague.id}/role`, {
      role_id: await role('viewer'),
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ user_id: colleague.id, role: { name: 'viewer', is_system: true } });
    // No waiting: the change answers once every resource process has applied it.
    expect((await colleague.api.get<Me>('/api/me')).body).toMatchObject({ role: 'viewer' });
    expect((await server.resource.as(key.token).get<Me>('/api/me')).body.permissions).toEqual(['items.read']);
    expect((await colleague.api.post('/api/items', { title: 'x' })).status).toBe(403);
  });

  it('refuses foreign ids, and roles the caller could not grant or members it could not manage', async () => {
    const { owner, user, join, role } = await team();
    const admin = await join('admin');
    const colleague = await join('member');
    const outsider = await f.account('owner');
    const [foreignRole] = await server.database.sql<{ id: string }[]>`
      insert into roles (org_id, name, permissions) values (${outsider.org.id}, 'theirs', '{items.read}') returning id`;

    const foreignUser = await owner.post(`/api/admin/users/${outsider.user.id}/role`, {
      role_id: await role('viewer'),
    });
    expect(foreignUser.status).toBe(404);
    const badRole = await owner.post(`/api/admin/users/${colleague.id}/role`, { role_id: foreignRole!.id });
    expect(badRole.status).toBe(400);
    expect(badRole.body).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { role_id: 'no such role in this organization' },
    });

    // An Admin lacks org.delete and org.billing: it cannot make an Owner, nor change an Owner.
    const promote = await admin.api.post(`/api/admin/users/${colleague.id}/role`, {
      role_id: await role('owner'),
    });
    expect(promote.status).toBe(403);
    expect(promote.body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'org.delete',
    });
    const demoteOwner = await admin.api.post(`/api/admin/users/${user.id}/role`, {
      role_id: await role('member'),
    });
    expect(demoteOwner.status).toBe(403);
    // What an Admin holds, it can give.
    const toAdmin = await admin.api.post(`/api/admin/users/${colleague.id}/role`, {
      role_id: await role('admin'),
    });
    expect(toAdmin.status).toBe(200);
    // And without users.change_role, nothing.
    await owner.post(`/api/admin/users/${admin.id}/role`, { role_id: await role('viewer') });
    const asViewer = await admin.api.post(`/api/admin/users/${colleague.id}/role`, {
      role_id: await role('viewer'),
    });
    expect(asViewer.body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'users.change_role',
    });
  });

  it('keeps at least one Owner, also against two concurrent demotions', async () => {
    const { owner, user, join, role, org } = await team();
    const only = await owner.post(`/api/admin/users/${user.id}/role`, { role_id: await role('admin') });
    expect(only.status).toBe(409);
    expect(only.body).toEqual({
      error: 'the organization must keep an Owner: make another member Owner first',
      code: 'last_owner',
    });
    expect((await owner.post(`/api/admin/users/${user.id}/deactivate`)).status).toBe(409);

    const second = await join('owner');
    const member = await role('member');
    // Both requests pass their permission checks, then wait here for the organization's lock.
    let both: Promise<Array<{ status: number }>> = Promise.resolve([]);
    await server.database.sql.begin(async (tx) => {
      await tx`select 1 from organizations where id = ${org.id} for update`;
      both = Promise.all([
        owner.post(`/api/admin/users/${second.id}/role`, { role_id: member }),
        second.api.post(`/api/admin/users/${user.id}/role`, { role_id: member }),
      ]);
      await new Promise((r) => setTimeout(r, 300));
    });
    expect((await both).map((r) => r.status).sort()).toEqual([200, 409]);
    const [owners] = await server.database.sql<{ n: number }[]>`
      select count(*)::int as n from memberships m join roles r on r.id = m.role_id
       where m.org_id = ${org.id} and r.org_id is null and r.name = 'owner'`;
    expect(owners!.n).toBe(1);
  });

  it('removes a member: every credential of theirs stops at once and stays stopped', async () => {
    const { owner, join, org } = await team();
    const colleague = await join('member');
    const key = await f.apiKey(org.id, colleague.id);
    const [team1] = await server.database.sql<{ id: string }[]>`
      insert into teams (org_id, name, slug) values (${org.id}, 'Ops', 'ops') returning id`;
    await server.database
      .sql`insert into team_members (org_id, team_id, user_id) values (${org.id}, ${team1!.id}, ${colleague.id})`;
    expect((await colleague.api.get('/api/me')).status).toBe(200);

    const removed = await owner.post<{ user_id: string; removed_at: string }>(
      `/api/admin/users/${colleague.id}/deactivate`,
    );
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ user_id: colleague.id, removed_at: expect.any(String) });
    expect((await colleague.api.get('/api/me')).status).toBe(401);
    expect((await server.resource.as(key.token).get('/api/me')).status).toBe(401);
    expect(
      await server.database.sql`select 1 from team_members where user_id = ${colleague.id}`,
    ).toHaveLength(0);
    expect((await owner.get<Member[]>('/api/admin/users')).body.map((m) => m.user_id)).not.toContain(
      colleague.id,
    );

    // Invited again later, they start with new credentials: the old ones stay revoked.
    await f.member(org.id, colleague.id, 'member');
    expect((await colleague.api.get('/api/me')).status).toBe(401);
    expect((await server.resource.as(key.token).get('/api/me')).status).toBe(401);

    expect((await owner.post(`/api/admin/users/${colleague.id}/deactivate`)).status).toBe(200);
    expect((await owner.post(`/api/admin/users/${colleague.id}/deactivate`)).status).toBe(404);
    const audit = await server.database.sql<{ action: string }[]>`
      select action from audit_entries where org_id = ${org.id} and action like 'member.%' order by id`;
    expect(audit.map((a) => a.action)).toEqual(['member.deactivate', 'member.deactivate']);
  });

  it('lets an Admin remove a member but not an Owner', async () => {
    const { join, user } = await team();
    const admin = await join('admin');
    const colleague = await join('viewer');
    const refused = await admin.api.post(`/api/admin/users/${user.id}/deactivate`);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'org.delete',
    });
    expect((await admin.api.post(`/api/admin/users/${colleague.id}/deactivate`)).status).toBe(200);
  });
});

describe('organization', () => {
  it('shows its details with the callback secret to org.manage, and updates them', async () => {
    const { owner, join, org } = await team();
    const colleague = await join('member');
    const details = await owner.get<Record<string, unknown>>('/api/admin/org');
    expect(details.status).toBe(200);
    const [stored] = await server.database.sql<{ callback_secret: string }[]>`
      select callback_secret from organizations where id = ${org.id}`;
    expect(details.body).toMatchObject({
      id: org.id,
      name: org.name,
      slug: org.slug,
      is_personal: false,
      callback_secret: stored!.callback_secret,
    });
    expect((await colleague.api.get('/api/admin/org')).body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'org.manage',
    });

    const slug = `renamed-${org.id.slice(0, 8)}`;
    const updated = await owner.patch('/api/admin/org', {
      name: 'Renamed',
      slug,
      metadata: { tier: 'gold' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Renamed', slug, metadata: { tier: 'gold' } });

    const taken = await f.org();
    expect((await owner.patch('/api/admin/org', { slug: taken.slug })).status).toBe(409);
    expect((await owner.patch('/api/admin/org', { slug: 'Not A Slug' })).status).toBe(400);
    expect((await owner.patch('/api/admin/org', {})).status).toBe(400);
    expect((await owner.get<{ slug: string }>('/api/admin/org')).body.slug).toBe(slug);
  });

  it('reports the plan and the usage against each limit', async () => {
    const { owner, join, org } = await team();
    await join('member');
    await f.agent(org.id);
    await owner.post('/api/items', { title: 'one' });
    await owner.post('/api/items', { title: 'two' });
    const usage = await owner.get<Record<string, unknown>>('/api/admin/usage');
    expect(usage.status).toBe(200);
    expect(usage.body).toEqual({
      plan: { code: 'free', name: 'Free', audit_retention_days: 30 },
      subscription: { status: 'active', current_period_end: null, cancel_at_period_end: false },
      month: new Date().toISOString().slice(0, 7),
      limits: {
        max_seats: { limit: 3, current: 2 },
        max_teams: { limit: 1, current: 0 },
        monthly_notifications: { limit: 1000, current: 2 },
        webhooks: { limit: 1, current: 0 },
        agents: { limit: 1, current: 1 },
      },
    });
    await server.database.sql`
      update subscriptions set plan_id = (select id from plans where code = 'enterprise') where org_id = ${org.id}`;
    const unlimited = await owner.get<{ limits: Record<string, unknown> }>('/api/admin/usage');
    expect(unlimited.body.limits).toMatchObject({
      max_seats: { limit: null, current: 2 },
      monthly_notifications: { limit: null, current: null },
    });
  });
});
