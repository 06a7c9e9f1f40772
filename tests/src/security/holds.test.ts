import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Factories, MCP_ACCEPT, startTestServer, type TestServer } from '../harness';
import { openEventStream } from '../harness/sse';

let server: TestServer;
let f: Factories;
const closers: (() => void)[] = [];

beforeAll(async () => {
  server = await startTestServer({
    env: {
      HOLDS_PER_CREDENTIAL: '2',
      HOLDS_PER_USER: '3',
      HOLDS_PER_PROCESS: '4',
      HTTP_MAX_BODIES_PER_ADDRESS: '3',
    },
  });
  f = new Factories(server.database.db);
});
afterAll(async () => {
  for (const close of closers) close();
  await server?.close();
});

async function stream(token: string) {
  const opened = await openEventStream(`${server.resource.baseUrl}/mcp/sse`, {
    authorization: `Bearer ${token}`,
  });
  closers.push(() => opened.close());
  return opened;
}

/** A WebSocket to /api/ws, open, not signed in yet: what it received and how it closed. */
async function unsigned() {
  const ws = new WebSocket(`${server.resource.baseUrl.replace('http', 'ws')}/api/ws`);
  closers.push(() => ws.terminate());
  const messages: { type: string; error?: string; retry_after?: number }[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(data.toString())));
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return { ws, messages, closed };
}

/** A WebSocket to /api/ws, signed in with `token`. */
async function socket(token: string) {
  const opened = await unsigned();
  opened.ws.send(JSON.stringify({ type: 'auth', token }));
  await expect.poll(() => opened.messages.length).toBeGreaterThan(0);
  return opened;
}

describe('streams and waiting calls are capped per credential, per user and per process', () => {
  it('answers 429 with Retry-After past each cap, and frees a hold when its stream ends', async () => {
    const { org, user } = await f.account();
    const key = await f.apiKey(org.id, user.id);
    const first = await stream(key.token);
    const second = await stream(key.token);
    expect([first.status, second.status]).toEqual([200, 200]);

    // The credential's cap (2): a third stream, and an MCP call (it may wait), are refused.
    const third = await stream(key.token);
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('5');
    const call = await server.resource
      .as(key.token)
      .post('/mcp', { jsonrpc: '2.0', id: 7, method: 'ping' }, { headers: { accept: MCP_ACCEPT } });
    expect(call.status).toBe(429);
    expect(call.body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { message: 'rate limited' } });

    // The user's cap (3): another key of the same person gets one more, then no more.
    const other = await f.apiKey(org.id, user.id);
    expect((await stream(other.token)).status).toBe(200);
    expect((await stream(other.token)).status).toBe(429);

    // A stream that ends gives its hold back.
    first.close();
    await expect.poll(async () => (await stream(key.token)).status).toBe(200);

    // The process's cap (4): WebSockets count too, whoever opens them.
    const stranger = await f.account();
    const ws = await socket(stranger.token);
    expect(ws.messages[0]?.type).toBe('ready');
    const refused = await socket((await f.account()).token);
    expect(refused.messages[0]).toMatchObject({ type: 'error', error: 'rate limited', retry_after: 5 });
    expect(await refused.closed).toBe(1013);
    ws.ws.terminate();
    await expect.poll(async () => (await socket((await f.account()).token)).messages[0]?.type).toBe('ready');
  });

  it('lets one address hold only a few WebSockets that have not signed in yet', async () => {
    const waiting = [await unsigned(), await unsigned(), await unsigned()];
    const fourth = await unsigned();
    expect(await fourth.closed).toBe(1013);
    // One signs in: its place is free again.
    waiting[0]!.ws.send(JSON.stringify({ type: 'auth', token: 'not-a-token' }));
    expect(await waiting[0]!.closed).toBe(4401);
    const next = await unsigned();
    expect(next.ws.readyState).toBe(WebSocket.OPEN);
    for (const w of [...waiting, next]) w.ws.terminate();
  });
});
