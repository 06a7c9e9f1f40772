import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';

type Item = { id: string; title: string };

let server: TestServer;
let client: HttpClient;
let orgId: string;

beforeAll(async () => {
  server = await startTestServer();
  const account = await new Factories(server.database.db).account('owner');
  orgId = account.org.id;
  client = server.resource.as(account.token);
});
afterAll(() => server?.close());

const post = (key: string, body: unknown, as = client) =>
  as.post<Item>('/api/items', body, { headers: { 'idempotency-key': key } });
const count = async (title: string) =>
  (await server.database.sql`select 1 from items where org_id = ${orgId} and title = ${title}`).length;

describe('Idempotency-Key', () => {
  it('replays the first answer for the same key and body, and creates one item', async () => {
    const first = await post('key-1', { title: 'once', tags: ['a'], metadata: { x: 1, y: 2 } });
    const again = await post('key-1', { metadata: { y: 2, x: 1 }, tags: ['a'], title: 'once' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await count('once')).toBe(1);
  });

  it('refuses the same key with a different body (422)', async () => {
    await post('key-2', { title: 'first body' });
    const res = await post('key-2', { title: 'second body' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'idempotency key reused with a different request',
      code: 'idempotency_key_reused',
    });
    expect(await count('second body')).toBe(0);
  });

  it('frees the key when the operation fails, so a corrected retry goes through', async () => {
    const failed = await post('key-3', { title: 'fixed later', channel_id: crypto.randomUUID() });
    expect(failed.status).toBe(400);
    const fixed = await post('key-3', { title: 'fixed later' });
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
  });

  it('lets concurrent duplicates create one item (the others get 409 or the replay)', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => post('key-4', { title: 'raced' })));
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    expect(statuses).toContain(201);
    for (const r of results.filter((r) => r.status === 409)) {
      expect(r.body).toEqual({
        error: 'a request with this idempotency key is in progress',
        code: 'request_in_progress',
      });
    }
    expect(new Set(results.filter((r) => r.status === 201).map((r) => r.body.id)).size).toBe(1);
    expect(await count('raced')).toBe(1);
  });

  it('scopes keys to the caller, and forgets them after 24 hours', async () => {
    const otherUser = await new Factories(server.database.db).user();
    await new Factories(server.database.db).member(orgId, otherUser.id, 'member');
    const colleague = server.resource.as(
      (await new Factories(server.database.db).session(otherUser.id, orgId)).token,
    );
    expect((await post('key-5', { title: 'scoped' })).status).toBe(201);
    const theirs = await post('key-5', { title: 'scoped' }, colleague);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(await count('scoped')).toBe(2);

    await server.database
      .sql`update idempotency_keys set created_at = now() - interval '25 hours' where key = 'key-5'`;
    const later = await post('key-5', { title: 'scoped' });
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(await count('scoped')).toBe(3);
  });

  it('applies to comments too, and refuses an over-long key', async () => {
    const item = (await client.post<Item>('/api/items', { title: 'commented' })).body;
    const headers = { 'idempotency-key': 'comment-1' };
    await client.post(`/api/items/${item.id}/comments`, { body: 'hello' }, { headers });
    const replay = await client.post(`/api/items/${item.id}/comments`, { body: 'hello' }, { headers });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await client.get<unknown[]>(`/api/items/${item.id}/comments`)).body).toHaveLength(1);
    const long = await post('k'.repeat(256), { title: 'x' });
    expect(long.status).toBe(400);
    expect(long.body).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { 'Idempotency-Key': 'must be 1 to 255 characters' },
    });
  });

  it('applies to every creation: channels, agents, organizations', async () => {
    const headers = { 'idempotency-key': 'create-everything' };
    const channel = await client.post('/api/channels', { name: 'deploys', mode: 'open' }, { headers });
    expect(channel.status).toBe(201);
    const channelAgain = await client.post('/api/channels', { name: 'deploys', mode: 'open' }, { headers });
    expect(channelAgain.status).toBe(201);
    expect(channelAgain.body).toEqual(channel.body);
    expect(channelAgain.headers.get('idempotent-replayed')).toBe('true');
    // The same key on another operation is another request.
    const agent = await client.post('/api/admin/agents', { name: 'deploy-bot' }, { headers });
    expect(agent.status).toBe(201);
    const agentAgain = await client.post('/api/admin/agents', { name: 'deploy-bot' }, { headers });
    expect(agentAgain.body).toEqual(agent.body);
    expect((await client.get<unknown[]>('/api/admin/agents')).body).toHaveLength(1);
    const auth = server.auth.as(client.token);
    const org = await auth.post('/auth/orgs', { name: 'Once' }, { headers });
    const orgAgain = await auth.post('/auth/orgs', { name: 'Once' }, { headers });
    expect(orgAgain.body).toEqual(org.body);
    expect(orgAgain.headers.get('idempotent-replayed')).toBe('true');
  });

  it('never stores an answer holding a secret shown once: such creations are not replayed', async () => {
    const headers = { 'idempotency-key': 'secret-once' };
    const first = await client.post<{ token: string }>('/api/inbound-webhooks', { name: 'ci' }, { headers });
    const second = await client.post<{ token: string }>('/api/inbound-webhooks', { name: 'ci' }, { headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.token).not.toBe(first.body.token);
    const stored = await server.database.sql`select 1 from idempotency_keys where key = 'secret-once'`;
    expect(stored).toHaveLength(0);
  });

  it('commits a creation and its stored answer together: a failure in between creates nothing', async () => {
    // The test database refuses to store the answer, as a crash at that moment would.
    const sql = server.database.sql;
    await sql`create function refuse_answer() returns trigger language plpgsql as $$
              begin raise exception 'answer refused by the test'; end $$`;
    await sql`create trigger refuse_answer before update on idempotency_keys
              for each row execute function refuse_answer()`;
    try {
      const failed = await post('atomic-1', { title: 'all or nothing' });
      expect(failed.status).toBe(500);
      expect(await count('all or nothing')).toBe(0);
    } finally {
      await sql`drop trigger refuse_answer on idempotency_keys`;
      await sql`drop function refuse_answer()`;
    }
    const retried = await post('atomic-1', { title: 'all or nothing' });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await count('all or nothing')).toBe(1);
  });
});
