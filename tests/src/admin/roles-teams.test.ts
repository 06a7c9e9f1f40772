import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, planLimitBody, startTestServer, type TestServer } from '../harness';

type Role = { id: string; name: string; is_system: boolean; permissions: string[]; members: number };
type Team = { id: string; name: string; slug: string; members: number };

let server: TestServer;
let f: Factories;

beforeAll(async () => {
  server = await startTestServer();
  f = new Factories(server.database.db);
});
afterAll(() => server?.close());

const org = () => f.team(server.resource);

const createRole = (as: HttpClient, body: Record<string, unknown>) => as.post<Role>('/api/admin/roles', body);

describe('roles', () => {
  it("lists the system roles, then the organization's own, with member counts", async () => {
    const { owner, join } = await org();
    await join('member');
    await createRole(owner, { name: 'Triage', permissions: ['items.read', 'items.archive'] });
    const other = await org();
    await createRole(other.owner, { name: 'Theirs', permissions: ['items.read'] });
    const roles = (await owner.get<Role[]>('/api/admin/roles')).body;
    expect(roles.map((r) => [r.name, r.is_system, r.members])).toEqual([
      ['owner', true, 1],
      ['admin', true, 0],
      ['member', true, 1],
      ['viewer', true, 0],
      ['Triage', false, 0],
    ]);
  });

  it('creates a custom role within the escalation guard (wildcards expanded, free-form needs everything)', async () => {
    const { owner, join } = await org();
    const admin = await join('admin');
    const created = await createRole(owner, {
      name: 'Responders',
      description: 'On call',
      permissions: ['items.*', 'audit.read', 'audit.read'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Responders',
      description: 'On call',
      is_system: false,
      permissions: ['items.*', 'audit.read'],
      members: 0,
    });
    // An Admin may grant items.* (it holds every items permission), not org.* nor a free-form one.
    expect((await createRole(admin.api, { name: 'Items', permissions: ['items.*'] })).status).toBe(201);
    const orgWide = await createRole(admin.api, { name: 'Org', permissions: ['org.*'] });
    expect(orgWide.status).toBe(403);
    expect(orgWide.body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'org.delete',
    });
    const freeForm = await createRole(admin.api, { name: 'Exports', permissions: ['reports.export'] });
    expect(freeForm.status).toBe(403);
    expect((await createRole(owner, { name: 'Exports', permissions: ['reports.export', '*'] })).status).toBe(
      201,
    );

    expect((await createRole(owner, { name: 'responders', permissions: [] })).status).toBe(409);
    expect((await createRole(owner, { name: 'Owner', permissions: [] })).status).toBe(409);
    const bad = await createRole(owner, { name: '', permissions: ['has space'] });
    expect(bad.status).toBe(400);
    expect(Object.keys((bad.body as unknown as { fields: object }).fields).sort()).toEqual([
      'name',
      'permissions.0',
    ]);
  });

  it('edits a custom role: its members have the new permissions on their next request', async () => {
    const { owner, join } = await org();
    const role = (await createRole(owner, { name: 'Writers', permissions: ['items.read', 'items.write'] }))
      .body;
    const writer = await join({ id: role.id });
    expect((await writer.api.post('/api/items', { title: 'allowed' })).status).toBe(201);

    const edited = await owner.patch<Role>(`/api/admin/roles/${role.id}`, { permissions: ['items.read'] });
    expect(edited.status).toBe(200);
    expect(edited.body.permissions).toEqual(['items.read']);
    const refused = await writer.api.post('/api/items', { title: 'not any more' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'items.write',
    });

    const stranger = await org();
    expect((await stranger.owner.patch(`/api/admin/roles/${role.id}`, { name: 'x' })).status).toBe(404);
    const system = (await owner.get<Role[]>('/api/admin/roles')).body.find((r) => r.name === 'viewer')!;
    const editSystem = await owner.patch(`/api/admin/roles/${system.id}`, { permissions: ['*'] });
    expect(editSystem.status).toBe(403);
    expect(editSystem.body).toEqual({ error: 'system roles cannot be edited', code: 'system_role' });
    expect((await owner.patch(`/api/admin/roles/${role.id}`, {})).status).toBe(400);
    const cleared = await owner.patch<Role & { description: string }>(`/api/admin/roles/${role.id}`, {
      description: '',
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.description).toBe('');
  });

  it('deletes a custom role only once nobody holds it and no open invitation offers it', async () => {
    const { owner, join } = await org();
    const role = (await createRole(owner, { name: 'Temp', permissions: ['items.read'] })).body;
    const holder = await join({ id: role.id });
    const inUse = await owner.delete(`/api/admin/roles/${role.id}`);
    expect(inUse.status).toBe(409);
    expect(inUse.body).toEqual({
      error: 'the role has members: give them another role first',
      code: 'role_in_use',
      members: 1,
    });

    const viewer = (await owner.get<Role[]>('/api/admin/roles')).body.find((r) => r.name === 'viewer')!;
    await owner.post(`/api/admin/users/${holder.id}/role`, { role_id: viewer.id });
    const invitation = await owner.post<{ id: string }>('/api/admin/invitations', {
      kind: 'link',
      role_id: role.id,
    });
    expect((await owner.delete(`/api/admin/roles/${role.id}`)).status).toBe(409);
    await owner.post(`/api/admin/invitations/${invitation.body.id}/revoke`);

    const deleted = await owner.delete<Role>(`/api/admin/roles/${role.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.name).toBe('Temp');
    expect((await owner.get<Role[]>('/api/admin/roles')).body.map((r) => r.name)).not.toContain('Temp');
    expect((await owner.delete(`/api/admin/roles/${role.id}`)).status).toBe(404);
    expect((await owner.delete(`/api/admin/roles/${viewer.id}`)).status).toBe(403);
  });
});

describe('teams', () => {
  it('creates teams within the plan (Free: 1), with slugs derived or given', async () => {
    const { owner, org: o } = await org();
    const created = await owner.post<Team>('/api/admin/teams', { name: 'Site Reliability' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Site Reliability', slug: 'site-reliability', members: 0 });
    const over = await owner.post('/api/admin/teams', { name: 'Second' });
    expect(over.status).toBe(402);
    expect(over.body).toEqual(planLimitBody('max_teams', 1, 1));

    await server.database.sql`
      update subscriptions set plan_id = (select id from plans where code = 'team') where org_id = ${o.id}`;
    const again = await owner.post<Team>('/api/admin/teams', { name: 'Site reliability!' });
    expect(again.body.slug).toBe('site-reliability-2');
    expect((await owner.post('/api/admin/teams', { name: 'X', slug: 'site-reliability' })).status).toBe(409);
    const renamed = await owner.patch<Team>(`/api/admin/teams/${again.body.id}`, {
      name: 'SRE',
      slug: 'sre',
    });
    expect(renamed.body).toMatchObject({ name: 'SRE', slug: 'sre' });
    expect(
      (await owner.patch(`/api/admin/teams/${again.body.id}`, { slug: 'site-reliability' })).status,
    ).toBe(409);
    expect((await owner.get<Team[]>('/api/admin/teams')).body.map((t) => t.slug)).toEqual([
      'site-reliability',
      'sre',
    ]);
  });

  it('manages team members among the organization, with 404 for anything foreign', async () => {
    const { owner, join } = await org();
    const colleague = await join('member');
    const outsider = await org();
    const team = (await owner.post<Team>('/api/admin/teams', { name: 'Ops' })).body;
    const path = `/api/admin/teams/${team.id}/members`;

    const added = await owner.post(path, { user_id: colleague.id });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ user_id: colleague.id, email: expect.any(String) });
    expect((await owner.post(path, { user_id: colleague.id })).status).toBe(409);
    expect((await owner.post(path, { user_id: outsider.user.id })).status).toBe(404);
    expect((await owner.get<Array<{ user_id: string }>>(path)).body.map((m) => m.user_id)).toEqual([
      colleague.id,
    ]);
    expect((await owner.get<Team[]>('/api/admin/teams')).body[0]!.members).toBe(1);

    expect((await outsider.owner.get(path)).status).toBe(404);
    expect((await outsider.owner.delete(`/api/admin/teams/${team.id}`)).status).toBe(404);
    const denied = await colleague.api.post(path, { user_id: colleague.id });
    expect(denied.body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'teams.manage_members',
    });

    expect((await owner.delete(`${path}/${colleague.id}`)).status).toBe(200);
    expect((await owner.delete(`${path}/${colleague.id}`)).status).toBe(404);
    expect((await colleague.api.delete(`/api/admin/teams/${team.id}`)).status).toBe(403);
    expect((await owner.delete<Team>(`/api/admin/teams/${team.id}`)).body.name).toBe('Ops');
    expect((await owner.get<Team[]>('/api/admin/teams')).body).toEqual([]);
  });
});
