import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpClient, signedInCallers, startTestServer, type TestServer } from '../harness';

type Channel = { id: string; name: string; mode: string; description: string; created_at: string };

let server: TestServer;
let owner: HttpClient;
let member: HttpClient;
let viewer: HttpClient;
let other: HttpClient;
let orgId: string;

beforeAll(async () => {
  server = await startTestServer();
  ({ owner, member, viewer, other, orgId } = await signedInCallers(server.database.db, server.resource));
});
afterAll(() => server?.close());

const names = async (client: HttpClient) =>
  (await client.get<Channel[]>('/api/channels')).body.map((c) => c.name);

describe('channels', () => {
  it('creates a channel (201) and lists them by name', async () => {
    const res = await owner.post<Channel>('/api/channels', {
      name: 'ops',
      mode: 'open',
      description: 'Operations',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'ops',
      mode: 'open',
      description: 'Operations',
      escalation: [],
      escalation_policy_id: null,
      require_reauth: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const restricted = await owner.post<Channel>('/api/channels', { name: 'a-team.2_x', mode: 'restricted' });
    expect(restricted.status).toBe(201);
    expect(restricted.body).toMatchObject({ mode: 'restricted', description: '' });
    const list = await viewer.get<Channel[]>('/api/channels');
    expect(list.status).toBe(200);
    expect(list.body.map((c) => c.name)).toEqual(['a-team.2_x', 'ops']);
    expect(list.body[1]).toEqual(res.body);

    const item = await owner.post<{ channel: string }>('/api/items', { title: 'x', channel_id: res.body.id });
    expect(item.body.channel).toBe('ops');
  });

  it('refuses a duplicate name in the organization with 409, but not in another one', async () => {
    expect((await owner.post('/api/channels', { name: 'dup', mode: 'open' })).status).toBe(201);
    const again = await owner.post('/api/channels', { name: 'dup', mode: 'restricted' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: 'channel name already exists', code: 'name_taken' });
    expect((await other.post('/api/channels', { name: 'dup', mode: 'open' })).status).toBe(201);
  });

  it('answers 400 naming each bad field', async () => {
    const res = await owner.post('/api/channels', { name: 'Ops Team', mode: 'secret', colour: 'red' });
    expect(res.status).toBe(400);
    const body = res.body as { error: string; fields: Record<string, string> };
    expect(body.error).toBe('invalid request');
    expect(Object.keys(body.fields).sort()).toEqual(['colour', 'mode', 'name']);
    expect(body.fields.colour).toBe('unknown field');
    expect(body.fields.name).toMatch(/lowercase/);

    const missing = await owner.post('/api/channels', {});
    expect(Object.keys((missing.body as { fields: object }).fields).sort()).toEqual(['mode', 'name']);
    for (const name of ['', 'x'.repeat(65), '-leading', 'UPPER', 'sp ace', 'ü']) {
      const bad = await owner.post('/api/channels', { name, mode: 'open' });
      expect(bad.status, name).toBe(400);
      expect(Object.keys((bad.body as { fields: object }).fields), name).toEqual(['name']);
    }
    expect((await owner.post('/api/channels', { name: 'x'.repeat(64), mode: 'open' })).status).toBe(201);
    const longDescription = await owner.post('/api/channels', {
      name: 'described',
      mode: 'open',
      description: 'd'.repeat(501),
    });
    expect(Object.keys((longDescription.body as { fields: object }).fields)).toEqual(['description']);
  });

  it('needs channels.create to create and items.read to list', async () => {
    for (const client of [member, viewer]) {
      const denied = await client.post('/api/channels', { name: 'nope', mode: 'open' });
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual({
        error: 'permission denied',
        code: 'permission_denied',
        required: 'channels.create',
      });
    }
    expect(await names(owner)).not.toContain('nope');
    expect((await member.get('/api/channels')).status).toBe(200);
    expect((await server.resource.get('/api/channels')).status).toBe(401);
  });

  it('never shows another organization’s channels, nor lets it use them', async () => {
    const mine = await owner.post<Channel>('/api/channels', { name: 'private-one', mode: 'open' });
    expect(await names(other)).not.toContain('private-one');
    const foreign = await other.post('/api/items', { title: 'x', channel_id: mine.body.id });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { channel_id: 'unknown channel' },
    });
  });

  it('records the creation in the audit log', async () => {
    const created = await owner.post<Channel>('/api/channels', { name: 'audited', mode: 'open' });
    const [entry] = await server.database.sql<{ action: string; item_id: string | null; data: unknown }[]>`
      select action, item_id, data from audit_entries
       where org_id = ${orgId} and action = 'channel.create' and data->>'name' = 'audited'`;
    expect(entry).toEqual({
      action: 'channel.create',
      item_id: null,
      data: { channel_id: created.body.id, name: 'audited' },
    });
  });
});
