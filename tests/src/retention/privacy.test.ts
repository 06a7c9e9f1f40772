import { randomUUID } from 'node:crypto';
import type { AuditVerdict } from '@beckon/contracts/audit/audit.contract';
import type { PersonExport } from '@beckon/contracts/retention/privacy.contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';

let server: TestServer;
let factories: Factories;

beforeAll(async () => {
  server = await startTestServer();
  factories = new Factories(server.database.db);
});
afterAll(() => server?.close());

const FORM = { id: 'ok', fields: [{ id: 'approve', type: 'yesno', label: 'Ship it?', required: true }] };

/** A person with a personal workspace and a membership in a team's organization, busy in it. */
async function busyPerson(role: 'member' | 'admin' = 'member') {
  const team = await factories.team(server.resource);
  const email = `person-${randomUUID().slice(0, 8)}@example.test`;
  const name = `Name ${randomUUID().slice(0, 8)}`;
  const user = await factories.user({ email, name });
  await factories.member(team.org.id, user.id, role);
  const personal = await factories.org({ personal: true });
  await factories.member(personal.id, user.id, 'owner');
  const session = await factories.session(user.id, team.org.id);
  const key = await factories.apiKey(team.org.id, user.id);
  const api = server.resource.as(session.token);
  const { sql } = server.database;
  await sql`insert into devices (user_id, org_id, device_token, platform)
            values (${user.id}, ${team.org.id}, ${`device-${user.id}`}, 'mobile')`;
  await sql`insert into magic_link_tokens (token_hash, email, expires_at)
            values (${`hash-${user.id}`}, ${email}, now() + interval '1 hour')`;
  await sql`insert into identity_links (user_id, provider, provider_user_id, email)
            values (${user.id}, 'github', ${user.id}, ${email})`;
  const asked = (await team.owner.post<{ id: string }>('/api/items', { title: 'Deploy?', form: FORM })).body;
  expect((await api.post(`/api/items/${asked.id}/answer`, { values: { approve: true } })).status).toBe(200);
  expect((await api.post(`/api/items/${asked.id}/comments`, { body: 'shipped it' })).status).toBe(201);
  const own = (await api.post<{ id: string }>('/api/items', { title: 'My own question' })).body;
  return { team, user, email, name, api, key, personal, asked, own };
}

/** Every row of every table (the job queue's too) as text, searched for `needle`: where it is left. */
async function tablesHolding(needle: string): Promise<string[]> {
  const { sql } = server.database;
  const tables = await sql<{ name: string }[]>`
    select format('%I.%I', n.nspname, c.relname) as name from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
     where c.relkind = 'r' and n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')`;
  const holding: string[] = [];
  for (const { name } of tables) {
    const [row] = await sql.unsafe<{ n: number }[]>(
      `select count(*)::int as n from ${name} t where t::text ilike '%' || $1 || '%'`,
      [needle],
    );
    if (row && row.n > 0) holding.push(name);
  }
  return holding;
}

const verify = async (api: HttpClient) => (await api.get<AuditVerdict>('/api/audit/verify')).body;

describe('a person’s data export', () => {
  it('holds their profile, memberships, items created and answered, answers and comments', async () => {
    const { api, user, email, name, team, asked, own, key } = await busyPerson();
    const res = await api.get<PersonExport>('/api/me/export');
    expect(res.status).toBe(200);
    const data = res.body;
    expect(data.profile).toMatchObject({ id: user.id, email, name });
    expect(data.memberships.map((m) => m.org_id)).toContain(team.org.id);
    expect(data.items_created.map((i) => i.id)).toEqual([own.id]);
    expect(data.items_answered).toMatchObject([
      { id: asked.id, status: 'answered', answered_by: { id: user.id } },
    ]);
    expect(data.answers).toMatchObject([{ item_id: asked.id, values: { approve: true } }]);
    expect(data.comments).toMatchObject([{ item_id: asked.id, body: 'shipped it' }]);

    // The organization's admins see the same, for their organization.
    const byAdmin = await team.owner.get<PersonExport>(`/api/admin/users/${user.id}/export`);
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.memberships.map((m) => m.org_id)).toEqual([team.org.id]);
    expect(byAdmin.body.answers).toEqual(data.answers);

    // An agent's key is not the person; a member is not an admin; another organization's person is unknown.
    expect((await server.resource.as(key.token).get('/api/me/export')).body).toMatchObject({
      code: 'session_required',
    });
    expect((await api.get(`/api/admin/users/${team.user.id}/export`)).body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'org.manage',
    });
    const stranger = await factories.account('owner');
    expect((await team.owner.get(`/api/admin/users/${stranger.user.id}/export`)).body).toEqual({
      error: 'not found',
      code: 'not_found',
    });
  });
});

describe('erasure', () => {
  it('leaves no trace of the person’s email or name, keeps their answers under a pseudonym, and the audit verifies', async () => {
    const { team, user, email, name, api, key, asked, personal } = await busyPerson();
    expect(await tablesHolding(email)).not.toEqual([]);
    const stranger = await factories.account('owner');
    expect((await team.owner.post(`/api/admin/users/${stranger.user.id}/erase`)).status).toBe(404);
    expect((await api.post(`/api/admin/users/${team.user.id}/erase`)).status).toBe(403);

    const res = await team.owner.post<{ user_id: string; erased_at: string }>(
      `/api/admin/users/${user.id}/erase`,
    );
    expect(res.status).toBe(200);
    expect(res.body.user_id).toBe(user.id);

    expect(await tablesHolding(email)).toEqual([]);
    expect(await tablesHolding(name)).toEqual([]);
    // Sessions and keys are gone at once; so are devices, sign-in links and external logins.
    expect((await api.get('/api/me')).status).toBe(401);
    expect((await server.resource.as(key.token).get('/api/items')).status).toBe(401);
    const { sql } = server.database;
    for (const table of ['sessions', 'api_keys', 'devices', 'identity_links', 'memberships']) {
      const rows = await sql`select 1 from ${sql(table)} where user_id = ${user.id}`;
      expect(rows.length, table).toBe(0);
    }
    // The answer stands, by the same id, which now names the pseudonym.
    const item = (
      await team.owner.get<{ response: unknown; answered_by: unknown; names: Record<string, string> }>(
        `/api/items/${asked.id}`,
      )
    ).body;
    expect(item).toMatchObject({ response: { approve: true }, answered_by: { type: 'user', id: user.id } });
    expect(item.names[user.id]).toBe('Erased person');
    const comments = (
      await team.owner.get<{ body: string; actor_id: string }[]>(`/api/items/${asked.id}/comments`)
    ).body;
    expect(comments).toMatchObject([{ body: 'shipped it', actor_id: user.id }]);
    // Audit rows are untouched: the chain verifies, and the erasure is on it.
    expect(await verify(team.owner)).toMatchObject({ valid: true, broken: null });
    const audit = (await team.owner.get<{ entries: { action: string; data: unknown }[] }>('/api/audit')).body;
    expect(audit.entries[0]).toMatchObject({ action: 'person.erase', data: { user_id: user.id } });
    // Their personal workspace is closed, its data left to the deletion job.
    const [closed] = await sql<{ deletion_requested_at: Date | null }[]>`
      select deletion_requested_at from organizations where id = ${personal.id}`;
    expect(closed?.deletion_requested_at).not.toBeNull();
    // Erasing again changes nothing.
    expect((await team.owner.post(`/api/admin/users/${user.id}/erase`)).status).toBe(404);
  });

  it('of a member who belongs to another organization is theirs alone to ask for', async () => {
    const { team, user } = await busyPerson();
    const elsewhere = await factories.org();
    await factories.member(elsewhere.id, user.id, 'member');
    expect((await team.owner.post(`/api/admin/users/${user.id}/erase`)).body).toEqual({
      error: 'the person also belongs to another organization',
      code: 'member_elsewhere',
    });
  });

  it('by the person themselves: confirmed by their email, refused to the only Owner of a team', async () => {
    const { api, email, user, team } = await busyPerson();
    expect((await api.post('/api/me/erase', { confirm: 'someone@else.test' })).body).toEqual({
      error: 'confirm must repeat your email address',
      code: 'confirmation_mismatch',
    });
    const owner = server.resource.as(team.token);
    expect((await owner.post('/api/me/erase', { confirm: team.user.email })).body).toMatchObject({
      code: 'last_owner',
    });
    const res = await api.post<{ user_id: string }>('/api/me/erase', { confirm: email.toUpperCase() });
    expect(res.status).toBe(200);
    expect(res.body.user_id).toBe(user.id);
    expect(await tablesHolding(email)).toEqual([]);
    expect((await api.get('/api/me')).status).toBe(401);
  });
});
