import { schema } from '@beckon/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';

type Stats = {
  total: number;
  open: number;
  answered: number;
  dismissed: number;
  archived: number;
  by_level: Record<string, number>;
  by_channel: Record<string, number>;
};

let server: TestServer;
let f: Factories;
let owner: HttpClient;
let viewer: HttpClient;
let other: HttpClient;
let orgId: string;

const FORM = { id: 'q', fields: [{ id: 'ok', type: 'yesno', label: 'OK?', required: true }] };

beforeAll(async () => {
  server = await startTestServer();
  f = new Factories(server.database.db);
  const account = await f.account('owner');
  orgId = account.org.id;
  owner = server.resource.as(account.token);
  const viewerUser = await f.user();
  await f.member(orgId, viewerUser.id, 'viewer');
  viewer = server.resource.as((await f.session(viewerUser.id, orgId)).token);
  other = server.resource.as((await f.account('owner')).token);
});
afterAll(() => server?.close());

const EMPTY: Stats = {
  total: 0,
  open: 0,
  answered: 0,
  dismissed: 0,
  archived: 0,
  by_level: { info: 0, warning: 0, error: 0, success: 0 },
  by_channel: { '(none)': 0 },
};

async function item(client: HttpClient, body: Record<string, unknown>, ...actions: string[]) {
  const res = await client.post<{ id: string }>('/api/items', body);
  expect(res.status).toBe(201);
  for (const action of actions) {
    const done = await client.post(
      `/api/items/${res.body.id}/${action}`,
      action === 'answer' ? { values: { ok: true } } : undefined,
    );
    expect(done.status, action).toBe(200);
  }
  return res.body.id;
}

describe('GET /api/stats', () => {
  it('answers zeros for an organization without items', async () => {
    const res = await owner.get<Stats>('/api/stats');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(EMPTY);
  });

  it('counts every item of the organization by status, level and channel', async () => {
    const channel = async (name: string) =>
      (await owner.post<{ id: string }>('/api/channels', { name, mode: 'open' })).body.id;
    const [ops, web] = [await channel('ops'), await channel('web')];
    await channel('quiet'); // no items: listed with 0
    await item(owner, { title: 'open info ops', level: 'info', channel_id: ops });
    await item(owner, { title: 'answered', level: 'warning', channel_id: ops, form: FORM }, 'answer');
    await item(
      owner,
      { title: 'answered, archived', level: 'warning', channel_id: ops, form: FORM },
      'answer',
      'archive',
    );
    await item(owner, { title: 'dismissed', level: 'error', channel_id: web }, 'dismiss');
    await item(owner, { title: 'archived, no channel', level: 'error' }, 'archive');
    await item(owner, { title: 'withdrawn, no channel', level: 'info' }, 'withdraw');
    await item(owner, { title: 'open success web', level: 'success', channel_id: web });
    await item(owner, { title: 'open, acked, pinned, no channel' }, 'ack', 'pin');
    // Snoozed and expired items count too (expired written directly: no waiting for a deadline).
    const snoozed = await item(owner, { title: 'snoozed', level: 'success', channel_id: web });
    await owner.post(`/api/items/${snoozed}/snooze`, {
      until: new Date(Date.now() + 3600_000).toISOString(),
    });
    await server.database.sql`
      insert into items (org_id, title, level, status, created_by_type)
      values (${orgId}, 'expired', 'warning', 'expired', 'system')`;

    const res = await viewer.get<Stats>('/api/stats');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      total: 10,
      open: 4,
      answered: 1,
      dismissed: 1,
      archived: 2,
      by_level: { info: 3, warning: 3, error: 2, success: 2 },
      by_channel: { ops: 3, web: 3, quiet: 0, '(none)': 4 },
    });
    // The answer is exactly these keys (nothing more).
    expect(Object.keys(res.body).sort()).toEqual(
      ['answered', 'archived', 'by_channel', 'by_level', 'dismissed', 'open', 'total'].sort(),
    );
  });

  it('follows changes: unarchiving moves an item back to its status', async () => {
    const id = await item(owner, { title: 'round trip', level: 'error' }, 'archive');
    const before = (await owner.get<Stats>('/api/stats')).body;
    await owner.post(`/api/items/${id}/unarchive`);
    const after = (await owner.get<Stats>('/api/stats')).body;
    expect(after).toEqual({ ...before, open: before.open + 1, archived: before.archived - 1 });
  });

  it('keeps organizations apart', async () => {
    const mine = (await owner.get<Stats>('/api/stats')).body;
    expect((await other.get<Stats>('/api/stats')).body).toEqual(EMPTY);
    await other.post('/api/channels', { name: 'ops', mode: 'open' });
    await item(other, { title: 'theirs', level: 'error' });
    expect((await other.get<Stats>('/api/stats')).body).toEqual({
      ...EMPTY,
      total: 1,
      open: 1,
      by_level: { ...EMPTY.by_level, error: 1 },
      by_channel: { ops: 0, '(none)': 1 },
    });
    expect((await owner.get<Stats>('/api/stats')).body).toEqual(mine);
  });

  it('needs items.read', async () => {
    const [role] = await server.database.db
      .insert(schema.roles)
      .values({ orgId, name: 'auditor', permissions: ['audit.read'] })
      .returning();
    const user = await f.user();
    await f.member(orgId, user.id, { id: role!.id });
    const auditor = server.resource.as((await f.session(user.id, orgId)).token);
    const denied = await auditor.get('/api/stats');
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'items.read',
    });
    expect((await server.resource.get('/api/stats')).status).toBe(401);
  });
});
