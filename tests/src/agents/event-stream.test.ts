import { connect as connectSocket } from 'node:net';
import { connect } from '@beckon/server/database';
import { buildResourceApp } from '@beckon/server/http/resource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Factories, HttpClient, startTestServer, type TestServer } from '../harness';
import { openEventStream, type SseEvent } from '../harness/sse';

type Item = { id: string };
let server: TestServer;
let f: Factories;
const streams: Array<{ close: () => void }> = [];

beforeAll(async () => {
  server = await startTestServer({ env: { STREAM_HEARTBEAT_MS: '200' } });
  f = new Factories(server.database.db);
});
afterAll(async () => {
  for (const s of streams) s.close();
  await server?.close();
});

/** An organization with an owner and two agents' keys. */
async function setup() {
  const account = await f.account('owner');
  const key = await f.apiKey(account.org.id, account.user.id);
  const otherKey = await f.apiKey(account.org.id, account.user.id);
  return {
    ...account,
    agentId: key.agentId,
    key: key.token,
    owner: server.resource.as(account.token),
    agent: server.resource.as(key.token),
    otherAgent: server.resource.as(otherKey.token),
  };
}

async function stream(token: string, query = '', headers: Record<string, string> = {}) {
  const s = await openEventStream(`${server.resource.baseUrl}/mcp/sse${query}`, {
    authorization: `Bearer ${token}`,
    ...headers,
  });
  streams.push(s);
  return s;
}

/** Resolves when the stream ends, fails the test if it is still open after 5 s. */
const endsSoon = (s: { ended: Promise<unknown> }) =>
  Promise.race([
    s.ended,
    new Promise((_, reject) => setTimeout(() => reject(new Error('stream still open')), 5000)),
  ]);

const payload = (event: SseEvent) =>
  JSON.parse(event.data) as { id: string; type: string; item: Item & Record<string, unknown> };
const ofItem = (events: SseEvent[], itemId: string) => events.filter((e) => payload(e).item?.id === itemId);

describe('GET /mcp/sse', () => {
  it('needs a token: 401 with the challenge', async () => {
    const res = await server.resource.get('/mcp/sse');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
  });

  it("streams the agent's own items as they change, with ids", async () => {
    const { agent, otherAgent, owner, key } = await setup();
    const s = await stream(key);
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');

    const mine = (
      await agent.post<Item>('/api/items', {
        title: 'Mine',
        form: { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?' }] },
      })
    ).body;
    const theirs = (await otherAgent.post<Item>('/api/items', { title: 'Theirs' })).body;
    await owner.post(`/api/items/${mine.id}/answer`, { values: { ok: true } });
    await s.until((events) => events.some((e) => e.event === 'item.answered'));

    expect(s.events.map((e) => e.event)).toEqual(['item.created', 'item.answered']);
    expect(ofItem(s.events, theirs.id)).toEqual([]);
    const answered = payload(s.events[1]!);
    expect(s.events[1]!.id).toBe(answered.id);
    expect(answered.item).toMatchObject({ id: mine.id, status: 'answered', response: { ok: true } });
  });

  it('?scope=org (and a person) sees every item of the organization, never another one', async () => {
    const { agent, otherAgent, key, token } = await setup();
    const foreign = await setup();
    const org = await stream(key, '?scope=org');
    const person = await stream(token);
    const a = (await agent.post<Item>('/api/items', { title: 'A' })).body;
    const b = (await otherAgent.post<Item>('/api/items', { title: 'B' })).body;
    const c = (await foreign.agent.post<Item>('/api/items', { title: 'C' })).body;
    for (const s of [org, person]) {
      await s.until((events) => ofItem(events, b.id).length === 1);
      expect(ofItem(s.events, a.id)).toHaveLength(1);
      expect(ofItem(s.events, c.id)).toHaveLength(0);
    }
  });

  it("a key restricted to its agent's items sees only those, on both streams, whatever it asks", async () => {
    const { org, user, agentId, otherAgent } = await setup();
    const own = await f.apiKey(org.id, user.id, { agentId, itemAccess: 'own' });
    const sse = await stream(own.token, '?scope=org');
    const ws = new WebSocket(`${server.resource.baseUrl.replace('http', 'ws')}/api/ws`);
    const received: Array<{ type: string; item?: { id: string } }> = [];
    ws.on('message', (data) => received.push(JSON.parse(String(data))));
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(JSON.stringify({ type: 'auth', token: own.token }));
    const until = async (check: () => boolean) => {
      for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
      expect(check()).toBe(true);
    };
    await until(() => received.some((m) => m.type === 'ready'));
    const theirs = (await otherAgent.post<Item>('/api/items', { title: 'Theirs' })).body;
    const mine = (await server.resource.as(own.token).post<Item>('/api/items', { title: 'Mine' })).body;
    await sse.until((events) => ofItem(events, mine.id).length === 1);
    await until(() => received.some((m) => m.item?.id === mine.id));
    expect(ofItem(sse.events, theirs.id)).toEqual([]);
    expect(received.filter((m) => m.item?.id === theirs.id)).toEqual([]);
    ws.close();
  });

  it('resumes with Last-Event-ID after a disconnect: what was missed, exactly once, in order', async () => {
    const { agent, owner, key } = await setup();
    const first = await stream(key);
    const item = (
      await agent.post<Item>('/api/items', {
        title: 'Resume me',
        form: { id: 'f', fields: [{ id: 'x', type: 'text', label: 'X' }] },
      })
    ).body;
    await first.until((events) => events.length === 1);
    first.close();

    await owner.post(`/api/items/${item.id}/answer`, { values: { x: 'yes' } });
    await owner.post(`/api/items/${item.id}/pin`);
    const resumed = await stream(key, '', { 'last-event-id': first.events[0]!.id! });
    await resumed.until((events) => events.length >= 2);
    await owner.post(`/api/items/${item.id}/archive`);
    await resumed.until((events) => events.length >= 3);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(resumed.events.map((e) => e.event)).toEqual(['item.answered', 'item.updated', 'item.archived']);
    expect(new Set(resumed.events.map((e) => e.id)).size).toBe(3);

    const byQuery = await stream(key, `?last_event_id=${first.events[0]!.id}`);
    await byQuery.until((events) => events.length >= 3);
    expect(byQuery.events.map((e) => e.id)).toEqual(resumed.events.map((e) => e.id));
  });

  it('says so when the Last-Event-ID is unknown or malformed, then goes on live', async () => {
    const { agent, key } = await setup();
    const unknown = await stream(key, '', { 'last-event-id': '00000000-0000-7000-8000-000000000000' });
    const malformed = await stream(key, '', { 'last-event-id': 'not-an-event-id' });
    await agent.post('/api/items', { title: 'After reset' });
    for (const s of [unknown, malformed]) {
      await s.until((events) => events.length >= 2);
      expect(s.events.map((e) => e.event)).toEqual(['stream.reset', 'item.created']);
    }
  });

  it('keeps nothing subscribed for a client that leaves while its token is being checked', async () => {
    const account = await f.account('owner');
    const hub = server.deps.events!;
    const before = hub.subscriberCount;
    const { port } = new URL(server.resource.baseUrl);
    // The session lookup waits on this lock, so the client is gone before the token is known.
    await server.database.sql.begin(async (tx) => {
      await tx`lock table sessions in access exclusive mode`;
      const socket = connectSocket(Number(port), '127.0.0.1');
      socket.on('error', () => {});
      socket.write(`GET /mcp/sse HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${account.token}\r\n\r\n`);
      await new Promise((r) => setTimeout(r, 200));
      socket.destroy();
      await new Promise((r) => setTimeout(r, 100));
    });
    await new Promise((r) => setTimeout(r, 300)); // the handler goes on once the lock is gone
    expect(hub.subscriberCount).toBe(before);
  });

  it("ends the stream when the caller's role loses items.read", async () => {
    const account = await f.account('owner');
    const s = await stream(account.token);
    await s.until(() => s.comments.includes('keep-alive'));
    await server.database.sql`
      with role as (insert into roles (org_id, name, permissions) values (${account.org.id}, 'nothing', '{}') returning id)
      update memberships set role_id = (select id from role) where user_id = ${account.user.id}`;
    await server.syncIdentities();
    await endsSoon(s);
  });

  it('ends its streams when the notification connection was interrupted; they resume without loss', async () => {
    const { agent, key } = await setup();
    const s = await stream(key);
    const before = (await agent.post<Item>('/api/items', { title: 'Before' })).body;
    await s.until((events) => ofItem(events, before.id).length === 1);
    await server.database.sql`
      select pg_terminate_backend(pid) from pg_stat_activity
       where application_name = 'beckon-events-listener' and datname = current_database()`;
    await endsSoon(s);
    // Created while the hub may not be listening: the resumed stream reads it from the database.
    const during = (await agent.post<Item>('/api/items', { title: 'During' })).body;
    const resumed = await stream(key, '', { 'last-event-id': s.events.at(-1)!.id! });
    await resumed.until((events) => ofItem(events, during.id).length === 1);
    expect(ofItem(resumed.events, before.id)).toEqual([]);
  });

  it('delivers changes made by another resource process', async () => {
    const { key, token } = await setup();
    const s = await stream(key, '?scope=org');
    const other = connect(server.deps.env, server.database.url, 'beckon-resource-2');
    const app = await buildResourceApp({
      ...server.deps,
      sql: other,
      events: undefined,
      credentials: undefined,
      orgFacts: undefined,
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const address = app.server.address() as { port: number };
      const second = new HttpClient(`http://127.0.0.1:${address.port}`, token);
      const item = (await second.post<Item>('/api/items', { title: 'From elsewhere' })).body;
      await s.until((events) => ofItem(events, item.id).length === 1);
    } finally {
      await app.close();
      await other.end({ timeout: 1 });
    }
  });

  it('keeps the connection alive and ends the stream of a revoked key', async () => {
    const account = await f.account('owner');
    const key = await f.apiKey(account.org.id, account.user.id);
    const s = await stream(key.token);
    await s.until(() => s.comments.includes('keep-alive'));
    await server.database.sql`update api_keys set revoked_at = now() where id = ${key.id}`;
    await endsSoon(s);
  });
});
