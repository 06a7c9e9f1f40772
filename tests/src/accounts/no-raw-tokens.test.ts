import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';
import type { Grant } from './helpers';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ worker: true });
});
afterAll(() => server?.close());

/** Every row of every table (ours and the job queue's), as text: what a dump would hold. */
async function dumpDatabase(): Promise<string> {
  const { sql } = server.database;
  const tables = await sql<{ schema: string; name: string }[]>`
    select table_schema as schema, table_name as name from information_schema.tables
     where table_type = 'BASE TABLE' and table_schema in ('public', 'graphile_worker')`;
  expect(tables.length).toBeGreaterThan(20);
  const parts = await Promise.all(
    tables.map(async ({ schema, name }) => {
      const [row] = await sql.unsafe<{ dump: string | null }[]>(
        `select string_agg(t::text, E'\\n') as dump from "${schema}"."${name}" t`,
      );
      return row?.dump ?? '';
    }),
  );
  return parts.join('\n');
}

describe('the database holds no raw token', () => {
  it('after sign-in, org switch, keys, invitations and logout', async () => {
    const raw: string[] = [];
    const { auth, resource } = server;

    const link = await auth.post<{ token: string }>('/auth/magic-link', { email: 'dump@example.test' });
    raw.push(link.body.token);
    const grant = (await auth.get<Grant>(`/auth/verify?token=${link.body.token}`)).body;
    raw.push(grant.token);
    const me = auth.as(grant.token);

    const org = (await me.post<{ id: string }>('/auth/orgs', { name: 'Dump Org' })).body;
    const switched = (await me.post<Grant>('/auth/switch-org', { org_id: org.id })).body;
    raw.push(switched.token);
    const admin = resource.as(switched.token);

    const agent = (await admin.post<{ id: string }>('/api/admin/agents', { name: 'bot' })).body;
    const key = (
      await auth
        .as(switched.token)
        .post<{ key: string }>('/auth/api-keys', { agent_id: agent.id, label: 'k' })
    ).body;
    raw.push(key.key);

    const member = (await new Factories(server.database.db).systemRole('member')).id;
    const invitation = (
      await admin.post<{ code: string }>('/api/admin/invitations', { kind: 'link', role_id: member })
    ).body;
    raw.push(invitation.code);
    const guest = await auth.post<{ token: string }>('/auth/magic-link', { email: 'guest@example.test' });
    raw.push(guest.body.token);
    const guestGrant = (await auth.get<Grant>(`/auth/verify?token=${guest.body.token}`)).body;
    raw.push(guestGrant.token);
    const accepted = (
      await auth.as(guestGrant.token).post<Grant>('/auth/invitations/accept', { code: invitation.code })
    ).body;
    raw.push(accepted.token);
    await me.post('/auth/logout');

    // 32 random bytes each; an API key names its organization before them (auth/tokens.ts).
    expect(raw.every((token) => /^(bk_[A-Za-z0-9_-]{22}_)?[A-Za-z0-9_-]{43}$/.test(token))).toBe(true);
    expect(new Set(raw).size).toBe(raw.length);
    const dump = await dumpDatabase();
    expect(dump).toContain('dump@example.test');
    for (const token of raw) expect(dump).not.toContain(token.slice(-43));
  });
});
