import http from 'node:http';
import { RESET_TOO_FAR_BEHIND } from '@beckon/server/http/agent-stream';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';
import { openEventStream, type SseEvent } from '../harness/sse';

/** A Last-Event-ID resume is bounded: too far behind, the client is told to resync. */
const MAX = 1000;
let server: TestServer;
let f: Factories;
const streams: Array<{ close: () => void }> = [];

beforeAll(async () => {
  server = await startTestServer({ env: { STREAM_REPLAY_MAX_EVENTS: String(MAX) } });
  f = new Factories(server.database.db);
});
afterAll(async () => {
  for (const s of streams) s.close();
  await server?.close();
});

/** Numbers the organization's committed events and announces them, as a writer's sequencer run does. */
const sequence = (orgId: string) => server.database.sql`select beckon_sequence(${orgId}, repeat('0', 64))`;

/**
 * `count` events of the organization written straight into the stream log (`bytes` of padding
 * each) in one transaction, then numbered and announced; returns their ids in order.
 */
async function writeEvents(orgId: string, count: number, options: { bytes?: number } = {}) {
  // Ids in writing order: events committed together are numbered in id order.
  const ids = Array.from({ length: count }, () => uuidv7());
  await server.database.sql`
    insert into events (id, org_id, type, data)
    select id, ${orgId}, 'item.updated',
           jsonb_build_object('item', jsonb_build_object('n', n, 'pad', repeat('x', ${options.bytes ?? 10})))
      from unnest(${ids}::uuid[]) with ordinality as e(id, n)`;
  await sequence(orgId);
  return ids;
}

async function stream(token: string, lastEventId: string) {
  const s = await openEventStream(`${server.resource.baseUrl}/mcp/sse`, {
    authorization: `Bearer ${token}`,
    'last-event-id': lastEventId,
  });
  streams.push(s);
  return s;
}

const reason = (event: SseEvent) => (JSON.parse(event.data) as { reason: string }).reason;

describe('GET /mcp/sse resumed from far behind', () => {
  it(`replays a backlog of ${MAX} events in full`, async () => {
    const account = await f.account('owner');
    const [anchor, ...backlog] = await writeEvents(account.org.id, MAX + 1);
    const s = await stream(account.token, anchor!);
    await s.until((events) => events.length >= MAX, 20_000);
    expect(s.events.map((e) => e.id)).toEqual(backlog);
  });

  it('tells a client more events behind to resync, then goes on live', async () => {
    const account = await f.account('owner');
    const [anchor] = await writeEvents(account.org.id, MAX + 2);
    const s = await stream(account.token, anchor!);
    const item = (
      await server.resource.as(account.token).post<{ id: string }>('/api/items', { title: 'now' })
    ).body;
    await s.until((events) => events.some((e) => e.data.includes(item.id)));
    expect(s.events.map((e) => e.event)).toEqual(['stream.reset', 'item.created']);
    expect(reason(s.events[0]!)).toBe(RESET_TOO_FAR_BEHIND);
  });

  it('stops a replay that live events outrun (its client reads too slowly), and says so', async () => {
    const account = await f.account('owner');
    // A backlog within the limit but too large to sit in socket buffers: the replay waits for
    // the client, which is not reading, while more than the limit of live events arrive.
    const [anchor, ...backlog] = await writeEvents(account.org.id, 600, { bytes: 20_000 });
    const { port } = new URL(server.resource.baseUrl);
    const frames: string[] = [];
    const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.get(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp/sse',
          headers: { authorization: `Bearer ${account.token}`, 'last-event-id': anchor! },
        },
        resolve,
      );
      req.on('error', reject);
    });
    response.pause();
    await new Promise((r) => setTimeout(r, 500));
    const live = await writeEvents(account.org.id, MAX + 1);
    await new Promise((r) => setTimeout(r, 500));
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      text += chunk;
    });
    response.resume();
    const ended = new Promise((resolve) => response.on('close', resolve));
    for (let i = 0; i < 200 && !text.includes('stream.reset'); i++)
      await new Promise((r) => setTimeout(r, 50));
    response.destroy();
    await ended;
    for (const block of text.split('\n\n')) if (block.includes('event: ')) frames.push(block);
    const resetAt = frames.findIndex((f) => f.includes('event: stream.reset'));
    expect(resetAt).toBeGreaterThan(0);
    expect(frames[resetAt]).toContain(RESET_TOO_FAR_BEHIND);
    // Before it: what followed the anchor in order, each once, never more than the limit (the
    // replay may have read some of the live events from the log before they outran it).
    const replayed = frames.slice(0, resetAt).map((f) => /^id: (.+)$/m.exec(f)?.[1]);
    expect(replayed).toEqual([...backlog, ...live].slice(0, replayed.length));
    expect(replayed.length).toBeLessThanOrEqual(MAX);
  });
});

describe('GET /mcp/sse resumed after an event that committed before one written earlier', () => {
  it('replays the later commit too, and nothing that committed before it', async () => {
    const account = await f.account('owner');
    const [before] = await writeEvents(account.org.id, 1);
    // `late` is written first but commits last: it is numbered after `anchor`, in commit order,
    // so a stream resumed from `anchor` gets it.
    let commitLate: () => void = () => {};
    const lateCommitted = server.database.sql.begin(async (tx) => {
      await tx`insert into events (id, org_id, type, data)
               values (gen_random_uuid(), ${account.org.id}, 'item.updated', '{"item":{"late":true}}')`;
      await new Promise<void>((resolve) => {
        commitLate = resolve;
      });
    });
    await new Promise((r) => setTimeout(r, 200)); // the insert above has run
    const [anchor] = await writeEvents(account.org.id, 1);
    commitLate();
    await lateCommitted;
    await sequence(account.org.id);
    const s = await stream(account.token, anchor!);
    await s.until((events) => events.length >= 1, 10_000);
    const after = await writeEvents(account.org.id, 1);
    await s.until((events) => events.some((e) => e.id === after[0]), 10_000);
    expect(s.events.map((e) => e.data.includes('"late":true'))).toEqual([true, false]);
    expect(s.events[1]!.id).toBe(after[0]);
    expect(s.events.map((e) => e.id)).not.toContain(before);
  });
});
