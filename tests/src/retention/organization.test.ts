import { deleteOrganization } from '@beckon/server/modules/retention/org-deletion';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';

let server: TestServer;
let factories: Factories;

beforeAll(async () => {
  server = await startTestServer({ env: { RETENTION_BATCH_SIZE: '2' } });
  factories = new Factories(server.database.db);
});
afterAll(() => server?.close());

type Line = { type: string } & Record<string, unknown>;
const exported = async (api: HttpClient) => {
  const res = await api.get<string>('/api/admin/export');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/jsonl; charset=utf-8');
  return res.text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Line);
};

/** An organization with an owner, an admin, items, comments and a file. */
async function busyOrganization() {
  const team = await factories.team(server.resource);
  const admin = await team.join('admin');
  for (let i = 0; i < 5; i += 1) {
    const item = (await team.owner.post<{ id: string }>('/api/items', { title: `item ${i}` })).body;
    await team.owner.post(`/api/items/${item.id}/comments`, { body: `comment ${i}` });
    if (i === 0) {
      await team.owner.post(`/api/items/${item.id}/attachments`, {
        filename: 'a.txt',
        content_type: 'text/plain',
        data: Buffer.from('file').toString('base64'),
      });
    }
  }
  await team.owner.put('/api/admin/retention', { items_days: 400 });
  return { ...team, admin };
}

describe('the organization export', () => {
  it('streams every kind of its data as JSON Lines, secrets left out, and ends with the counts', async () => {
    const { owner, org, admin } = await busyOrganization();
    const other = await busyOrganization();
    const lines = await exported(owner);
    const count = (type: string) => lines.filter((l) => l.type === type).length;
    expect(lines[0]).toMatchObject({ type: 'organization', id: org.id, slug: org.slug });
    expect(lines[0]).not.toHaveProperty('callback_secret');
    expect(count('member')).toBe(2);
    expect(count('item')).toBe(5);
    expect(count('comment')).toBe(5);
    expect(count('attachment')).toBe(1);
    expect(lines.find((l) => l.type === 'attachment')).not.toHaveProperty('storage_key');
    expect(lines.find((l) => l.type === 'retention_policy')).toMatchObject({ items_days: 400 });
    expect(count('audit_entry')).toBeGreaterThan(10);
    expect(lines.at(-1)).toMatchObject({
      type: 'end',
      org_id: org.id,
      counts: { item: 5, comment: 5, attachment: 1, member: 2 },
    });
    // Nothing of the other organization.
    expect(lines.some((l) => l.org_id === other.org.id || l.id === other.org.id)).toBe(false);
    // org.manage: an admin may, a member may not.
    expect((await admin.api.get('/api/admin/export')).status).toBe(200);
    const member = await other.join('member');
    expect((await member.api.get('/api/admin/export')).body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'org.manage',
    });
  });
});

describe('deleting an organization', () => {
  it('is for Owners, confirmed by the slug; every credential stops at once; the job removes it all in batches', async () => {
    const { owner, org, admin, token } = await busyOrganization();
    const bystander = await busyOrganization();
    const key = await factories.apiKey(org.id, (await factories.user()).id);
    await factories.member(org.id, key.userId, 'member');
    expect((await server.resource.as(key.token).get('/api/items')).status).toBe(200);

    expect((await admin.api.post('/api/admin/org/delete', { confirm: org.slug })).body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'org.delete',
    });
    expect(
      (await server.resource.as(key.token).post('/api/admin/org/delete', { confirm: org.slug })).body,
    ).toMatchObject({ code: 'session_required' });
    expect((await owner.post('/api/admin/org/delete', { confirm: 'not-the-slug' })).body).toEqual({
      error: 'confirm must repeat the organization’s slug',
      code: 'confirmation_mismatch',
    });
    const res = await owner.post<{ org_id: string; deletion_requested_at: string }>('/api/admin/org/delete', {
      confirm: org.slug,
    });
    expect(res.status).toBe(202);
    expect(res.body.org_id).toBe(org.id);
    for (const credential of [token, admin.token, key.token]) {
      expect((await server.resource.as(credential).get('/api/items')).status).toBe(401);
    }

    const { sql } = server.database;
    const [job] = await sql<{ payload: { org_id: string } }[]>`
      select j.payload from graphile_worker._private_jobs j
        join graphile_worker._private_tasks t on t.id = j.task_id
       where t.identifier = 'delete_organization' and j.key = ${`delete_organization:${org.id}`}`;
    expect(job?.payload.org_id).toBe(org.id);
    const files = await sql<
      { storage_key: string }[]
    >`select storage_key from attachments where org_id = ${org.id}`;
    const removed = await deleteOrganization(server.deps, { org_id: org.id });
    expect(removed).toMatchObject({ items: 5, comments: 5, attachments: 1, files: 1 });
    expect(removed.audit_entries).toBeGreaterThan(10);
    for (const table of [
      'organizations',
      'items',
      'audit_entries',
      'memberships',
      'events',
      'retention_policies',
    ]) {
      const column = table === 'organizations' ? 'id' : 'org_id';
      const rows = await sql`select 1 from ${sql(table)} where ${sql(column)} = ${org.id}`;
      expect(rows.length, table).toBe(0);
    }
    expect(await server.deps.storage.get(files[0]!.storage_key)).toBeNull();
    // Run again: nothing to do. The bystander keeps everything.
    expect(await deleteOrganization(server.deps, { org_id: org.id })).toEqual({});
    expect((await bystander.owner.get<{ items: unknown[] }>('/api/items')).body.items).toHaveLength(5);
    expect((await bystander.owner.get<{ valid: boolean }>('/api/audit/verify')).body.valid).toBe(true);
  });

  it('removes what no foreign key ties to it (roles, sessions, sign-in links, OAuth records, slug) and frees its slug', async () => {
    const team = await factories.team(server.resource);
    const { org, owner } = team;
    const { sql } = server.database;
    const role = await owner.post<{ id: string }>('/api/admin/roles', {
      name: 'triager',
      permissions: ['items.read'],
    });
    expect(role.status).toBe(201);
    await sql`
      insert into magic_link_tokens (token_hash, email, org_id, expires_at)
      values (${`link-${org.id}`}, 'someone@example.test', ${org.id}, now() + interval '1 hour')`;
    await sql`
      insert into oauth_records (model, id_hash, payload, org_id, user_id)
      values ('AccessToken', ${`oauth-${org.id}`}, '{}', ${org.id}, ${team.user.id})`;
    const elsewhere = await factories.team(server.resource);

    expect((await owner.post('/api/admin/org/delete', { confirm: org.slug })).status).toBe(202);
    await deleteOrganization(server.deps, { org_id: org.id });
    for (const table of ['roles', 'sessions', 'magic_link_tokens', 'oauth_records', 'organization_slugs']) {
      const rows = await sql`select 1 from ${sql(table)} where org_id = ${org.id}`;
      expect(rows.length, table).toBe(0);
    }
    // The slug is free again; the other organization keeps its own.
    const renamed = await elsewhere.owner.patch<{ slug: string }>('/api/admin/org', { slug: org.slug });
    expect(renamed.status).toBe(200);
    expect(renamed.body.slug).toBe(org.slug);
    expect((await elsewhere.owner.get('/api/me')).status).toBe(200);
  });

  it('refuses a personal workspace (it goes with its person)', async () => {
    const personal = await factories.org({ personal: true });
    const user = await factories.user();
    await factories.member(personal.id, user.id, 'owner');
    const api = server.resource.as((await factories.session(user.id, personal.id)).token);
    expect((await api.post('/api/admin/org/delete', { confirm: personal.slug })).body).toEqual({
      error: 'a personal workspace is deleted with its person only',
      code: 'personal_workspace_kept',
    });
  });
});
