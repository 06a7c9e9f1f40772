import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Factories, HttpClient, startReceiver } from '../harness';
import { openEventStream } from '../harness/sse';
import {
  callbackItems,
  duplicateDeliveries,
  SETTLED_LISTENERS,
  settledListeners,
  startItemLoad,
} from './item-load';
import {
  eventually,
  type OwnPostgres,
  openClient,
  type ResourceProcess,
  spawnResource,
  startOwnPostgres,
} from './own-processes';

/**
 * PostgreSQL stopped under a small load, then started again: the API answers 503 with
 * Retry-After within the configured bound (never 500, never hanging), /ready says 503, and once
 * the database is back everything resumes without a restart: requests, the event stream (from
 * its Last-Event-ID), the job worker; nothing acknowledged before the outage is lost.
 */
const WAIT_MS = 2000;
const OUTAGE_MS = 5000;
const CLIENTS = 4;

let pg: OwnPostgres;
let client: ReturnType<typeof openClient>;
let resource: ResourceProcess;

beforeAll(async () => {
  pg = await startOwnPostgres();
  client = openClient(pg.url);
  resource = await spawnResource(pg.url, {
    DATABASE_WAIT_MS: String(WAIT_MS),
    WORKER_LIVENESS_TIMEOUT_MS: '3000',
    WORKER_SWEEP_INTERVAL_MS: '1000',
    DELIVERY_RETRY_BASE_MS: '200',
    STREAM_HEARTBEAT_MS: '1000',
  });
}, 120_000);

afterAll(async () => {
  await resource?.stop();
  await client?.end({ timeout: 1 });
  await pg?.close();
});

/**
 * Opens /api/ws, authenticates, and resolves with the close code, or 'open' once ready, or the
 * HTTP status of a refused upgrade.
 */
function webSocketAuth(baseUrl: string, token: string) {
  return new Promise<number | 'open'>((resolve, reject) => {
    const socket = new WebSocket(`${baseUrl.replace('http', 'ws')}/api/ws`);
    socket.on('open', () => socket.send(JSON.stringify({ type: 'auth', token })));
    socket.on('message', (raw) => {
      if ((JSON.parse(raw.toString()) as { type: string }).type !== 'ready') return;
      socket.close();
      resolve('open');
    });
    socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
    socket.on('close', (code) => resolve(code));
    socket.on('error', reject);
  });
}

describe('a database outage under load', () => {
  it('answers 503 with Retry-After in bounded time, then everything resumes', async () => {
    const account = await new Factories(client.db).account('owner');
    const api = new HttpClient(resource.url, account.token);
    const receiver = await startReceiver();

    const stream = await openEventStream(`${resource.url}/mcp/sse`, {
      authorization: `Bearer ${account.token}`,
    });
    expect(stream.status).toBe(200);

    // The load: each client creates an item with a callback URL, then dismisses it (a callback).
    const load = startItemLoad(api, `${receiver.url}/cb`, CLIENTS);
    const { calls, created, dismissed, timed } = load;

    await eventually(() => created.length >= 20, 20_000);
    const stoppedAt = Date.now();
    await pg.stop();
    const during = await timed('GET /api/items', () => api.get('/api/items'));
    const ready = await fetch(`${resource.url}/ready`);
    const socketDuring = await webSocketAuth(resource.url, account.token);
    const streamDuring = await fetch(`${resource.url}/mcp/sse`, {
      headers: { authorization: `Bearer ${account.token}` },
    });
    const healthDuring = await fetch(`${resource.url}/health`);
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    await pg.start();
    const startedAt = Date.now();
    const recovered = await eventually(() => load.firstCreatedSince(startedAt) !== undefined, 30_000);
    const recoveredMs = (load.firstCreatedSince(startedAt)?.started ?? 0) - startedAt;
    await new Promise((r) => setTimeout(r, 1000));
    await load.stop();

    // During the outage: 503 with Retry-After, within the bound; never a 500.
    expect(during.status).toBe(503);
    expect(during.body).toEqual({ error: 'database unavailable', code: 'database_unavailable' });
    expect(during.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toMatch(/^\d+$/);
    // Refused (503) or closed with 1013 (try again later), never 4401: the dashboard must not take
    // an outage for a sign-out.
    expect([503, 1013]).toContain(socketDuring);
    expect(streamDuring.status).toBe(503);
    expect(streamDuring.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(healthDuring.status).toBe(200);
    const refused = calls.filter((c) => c.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((c) => c.retryAfter !== null)).toBe(true);
    expect(calls.filter((c) => c.status !== 201 && c.status !== 200 && c.status !== 503)).toEqual([]);
    const slowest = Math.max(...calls.map((c) => c.ms));
    expect(slowest).toBeLessThan(2 * WAIT_MS + 1000);
    const firstRefusalMs = Math.min(...refused.map((c) => c.started + c.ms)) - stoppedAt;

    // After: requests succeed again, /ready, and nothing acknowledged was lost.
    expect(recovered).toBe(true);
    expect((await fetch(`${resource.url}/ready`)).status).toBe(200);
    expect(await webSocketAuth(resource.url, account.token)).toBe('open');
    const stored = await client.sql<
      { id: string }[]
    >`select id from items where id = any(${created}::uuid[])`;
    expect(stored.length).toBe(created.length);
    const stillDismissed = await client.sql<{ id: string }[]>`
      select id from items where id = any(${dismissed}::uuid[]) and status = 'dismissed'`;
    expect(stillDismissed.length).toBe(dismissed.length);

    // The worker delivers every acknowledged dismissal's callback.
    expect(
      await eventually(() => dismissed.every((id) => callbackItems(receiver.received).has(id)), 30_000),
    ).toBe(true);

    // The stream ended when the process re-listened (events may have been missed) and resumes
    // from its Last-Event-ID with every creation acknowledged before, during and after.
    await stream.ended;
    const lastId = stream.events.at(-1)?.id;
    expect(lastId).toBeTruthy();
    const resumed = await openEventStream(`${resource.url}/mcp/sse`, {
      authorization: `Bearer ${account.token}`,
      'last-event-id': lastId ?? '',
    });
    const createdSeen = () =>
      new Set(
        [...stream.events, ...resumed.events]
          .filter((e) => e.event === 'item.created')
          .map((e) => JSON.parse(e.data).item.id as string),
      );
    await resumed.until(() => created.every((id) => createdSeen().has(id)), 15_000);
    const after = await api.post<{ id: string }>('/api/items', { title: 'after the outage' });
    await resumed.until((events) => events.some((e) => e.data.includes(after.body.id)), 10_000);
    resumed.close();

    // Not a pile of reconnection loops: exactly one connection each once reconnections settle.
    expect(await settledListeners(client.sql)).toEqual(SETTLED_LISTENERS);
    await receiver.close();
    console.log(
      `[faults] database outage ${OUTAGE_MS} ms under ${CLIENTS} clients: ${calls.length} calls, ` +
        `${refused.length} answered 503 (first ${firstRefusalMs} ms after the stop began), slowest call ${slowest} ms, ` +
        `no 500; first success ${recoveredMs} ms after the restart; ${created.length} items acknowledged, ` +
        `all kept; ${dismissed.length} callbacks delivered, ${duplicateDeliveries(receiver.received)} duplicates`,
    );
  }, 120_000);
});
