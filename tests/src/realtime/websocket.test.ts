import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Factories, startTestServer, type TestServer } from '../harness';

type Message = { type: string; item?: { id: string; status: string }; error?: string; required?: string };
let server: TestServer;
let f: Factories;
const sockets: WebSocket[] = [];

beforeAll(async () => {
  server = await startTestServer({ env: { STREAM_HEARTBEAT_MS: '200' } });
  f = new Factories(server.database.db);
});
afterAll(async () => {
  for (const socket of sockets) socket.terminate();
  await server?.close();
});

/** A WebSocket to /api/ws that records every message and how it closed. */
async function open(firstMessage?: unknown) {
  const socket = new WebSocket(`${server.resource.baseUrl.replace('http', 'ws')}/api/ws`);
  sockets.push(socket);
  const messages: Message[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  socket.on('message', (data) => messages.push(JSON.parse(data.toString()) as Message));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  if (firstMessage !== undefined)
    socket.send(typeof firstMessage === 'string' ? firstMessage : JSON.stringify(firstMessage));
  const until = async (predicate: (all: Message[]) => boolean) => {
    for (let i = 0; i < 500 && !predicate(messages); i++) await new Promise((r) => setTimeout(r, 20));
    expect(predicate(messages)).toBe(true);
  };
  return { socket, messages, closed, until };
}

describe('GET /api/ws', () => {
  it("authenticates with the first message, then pushes the organization's item events", async () => {
    const account = await f.account('viewer');
    const writer = await f.user();
    await f.member(account.org.id, writer.id, 'member');
    const client = server.resource.as((await f.session(writer.id, account.org.id)).token);
    const other = await f.account('owner');

    const ws = await open({ type: 'auth', token: account.token });
    await ws.until((m) => m.some((x) => x.type === 'ready'));
    const item = (await client.post<{ id: string }>('/api/items', { title: 'Live' })).body;
    await server.resource.as(other.token).post('/api/items', { title: 'Elsewhere' });
    await client.post(`/api/items/${item.id}/dismiss`);
    await ws.until((m) => m.some((x) => x.type === 'item.dismissed'));
    const events = ws.messages.filter((m) => m.type.startsWith('item.'));
    expect(events.map((m) => [m.type, m.item?.id])).toEqual([
      ['item.created', item.id],
      ['item.dismissed', item.id],
    ]);
    expect(events[1]!.item!.status).toBe('dismissed');
  });

  it('refuses a bad first message (4400) and a bad token (4401)', async () => {
    const bad = await open('hello');
    expect((await bad.closed).code).toBe(4400);
    expect(bad.messages[0]?.type).toBe('error');
    const unknown = await open({ type: 'auth', token: 'nope' });
    expect((await unknown.closed).code).toBe(4401);
    expect(unknown.messages[0]).toEqual({ type: 'error', error: 'unauthorized', code: 'unauthorized' });
  });

  it('never takes the token from the URL', async () => {
    const account = await f.account('owner');
    const socket = new WebSocket(
      `${server.resource.baseUrl.replace('http', 'ws')}/api/ws?token=${account.token}`,
    );
    sockets.push(socket);
    const messages: Message[] = [];
    socket.on('message', (d) => messages.push(JSON.parse(d.toString()) as Message));
    await new Promise((resolve) => socket.once('open', resolve));
    await server.resource.as(account.token).post('/api/items', { title: 'Not for you' });
    await new Promise((r) => setTimeout(r, 300));
    expect(messages).toEqual([]);
  });

  it('closes the socket of a revoked session', async () => {
    const account = await f.account('owner');
    const ws = await open({ type: 'auth', token: account.token });
    await ws.until((m) => m.some((x) => x.type === 'ready'));
    await server.auth.as(account.token).post('/auth/logout');
    expect((await ws.closed).code).toBe(4401);
  });

  it('keeps nothing subscribed for a socket closed while its token is being checked', async () => {
    const account = await f.account('owner');
    const hub = server.deps.events!;
    const before = hub.subscriberCount;
    // The session lookup waits on this lock, so the socket is gone before the token is known.
    await server.database.sql.begin(async (tx) => {
      await tx`lock table sessions in access exclusive mode`;
      const ws = await open({ type: 'auth', token: account.token });
      await new Promise((r) => setTimeout(r, 200));
      ws.socket.terminate();
      await ws.closed;
    });
    await new Promise((r) => setTimeout(r, 300)); // the handler goes on once the lock is gone
    expect(hub.subscriberCount).toBe(before);
  });
});
