import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Cluster, startCluster } from '../../../scripts/cluster/start';
import { eventually, type OwnPostgres, openClient, startOwnPostgres } from '../faults/own-processes';
import { Factories, HttpClient, startReceiver } from '../harness';
import { openEventStream } from '../harness/sse';

/**
 * Several processes, one database, as `pnpm cluster` runs them (scripts/cluster/start.ts): the
 * authorization process, two resource processes and two job workers, each started from its
 * package.json script, behind the gateway taking the resource processes in turn.
 */
let pg: OwnPostgres;
let client: ReturnType<typeof openClient>;
let cluster: Cluster;
let dataDir: string;
let output = '';
let factories: Factories;

beforeAll(async () => {
  pg = await startOwnPostgres();
  client = openClient(pg.url);
  factories = new Factories(client.db);
  dataDir = await mkdtemp(path.join(tmpdir(), 'beckon-cluster-'));
  cluster = await startCluster({
    databaseUrl: pg.url,
    resources: 2,
    workers: 2,
    env: {
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      ALLOW_PRIVATE_DESTINATIONS: 'true',
      DATABASE_POOL_MAX: '5',
      WORKER_CONCURRENCY: '4',
      // A revoked key's open stream is told at its next keep-alive.
      STREAM_HEARTBEAT_MS: '500',
    },
    onOutput: (name, line) => {
      output += `[${name}] ${line}\n`;
    },
  }).catch((error: Error) => {
    throw new Error(`${error.message}\n${output}`);
  });
  // Both workers are up (each pool shows itself alive) before any job is queued.
  const pools = async () =>
    Number(
      (await client.sql<{ n: number }[]>`select count(distinct pool_id)::int as n from worker_heartbeats`)[0]
        ?.n,
    );
  if (!(await eventually(async () => (await pools()) >= 2, 60_000))) throw new Error(`workers:\n${output}`);
}, 240_000);

afterAll(async () => {
  await cluster?.stop();
  await client?.end({ timeout: 1 });
  await pg?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

const processA = () => cluster.resources[0]!;
const processB = () => cluster.resources[1]!;

type Message = { type: string; item?: { id: string } };

/** A person's /api/ws, authenticated and ready. */
async function personSocket(baseUrl: string, token: string) {
  const socket = new WebSocket(`${baseUrl.replace('http', 'ws')}/api/ws`);
  const messages: Message[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(data.toString()) as Message));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  socket.send(JSON.stringify({ type: 'auth', token }));
  expect(await eventually(() => messages.some((m) => m.type === 'ready'), 20_000)).toBe(true);
  return { socket, messages };
}

/** How many POST /api/items a resource process answered 201 (its /metrics). */
async function createdOn(url: string) {
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const line = metrics
    .split('\n')
    .find((l) => l.startsWith('http_requests_total{method="POST",route="/api/items",status="201"}'));
  return Number(line?.split(' ').pop() ?? 0);
}

const itemEvents = (events: Array<{ type: string; id?: string }>) => events.map((e) => `${e.type} ${e.id}`);

describe('two resource processes, the authorization process and two workers on one PostgreSQL', () => {
  it("an item created through A reaches an agent's /mcp/sse and a person's /api/ws on B, in order", async () => {
    const account = await factories.account('owner');
    const key = await factories.apiKey(account.org.id, account.user.id);
    const agentOnA = new HttpClient(processA().url, key.token);
    const stream = await openEventStream(`${processB().url}/mcp/sse`, {
      authorization: `Bearer ${key.token}`,
    });
    const person = await personSocket(processB().url, account.token);
    try {
      expect(stream.status).toBe(200);
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) {
        const created = await agentOnA.post<{ id: string }>('/api/items', { title: `from A ${i}` });
        expect(created.status).toBe(201);
        ids.push(created.body.id);
      }
      expect((await agentOnA.post(`/api/items/${ids[0]}/dismiss`)).status).toBe(200);
      const expected = [...ids.map((id) => `item.created ${id}`), `item.dismissed ${ids[0]}`];

      const onStream = () =>
        itemEvents(stream.events.map((e) => ({ type: e.event, id: JSON.parse(e.data).item?.id })));
      const onSocket = () =>
        itemEvents(
          person.messages
            .filter((m) => m.type.startsWith('item.'))
            .map((m) => ({ type: m.type, id: m.item?.id })),
        );
      expect(await eventually(() => onStream().length >= expected.length, 30_000)).toBe(true);
      expect(await eventually(() => onSocket().length >= expected.length, 30_000)).toBe(true);
      expect(onStream()).toEqual(expected);
      expect(onSocket()).toEqual(expected);
    } finally {
      stream.close();
      person.socket.terminate();
    }
  }, 90_000);

  it('a revocation (API key revoked, sign-out) fails on both resource processes at the next request', async () => {
    const account = await factories.account('owner');
    const key = await factories.apiKey(account.org.id, account.user.id);
    const signedIn = await factories.session(account.user.id, account.org.id);
    const router = new HttpClient(cluster.url);
    // Both processes have each credential in their caches.
    for (const { url } of cluster.resources) {
      expect((await new HttpClient(url, key.token).get('/api/items')).status).toBe(200);
      expect((await new HttpClient(url, signedIn.token).get('/api/me')).status).toBe(200);
    }
    const keyStream = await openEventStream(`${processB().url}/mcp/sse`, {
      authorization: `Bearer ${key.token}`,
    });
    expect(keyStream.status).toBe(200);

    const revoked = await router.as(account.token).post('/auth/api-keys/revoke', { key_id: key.id });
    expect(revoked.status).toBe(200);
    expect((await new HttpClient(processB().url, key.token).get('/api/items')).status).toBe(401);
    expect((await new HttpClient(processA().url, key.token).get('/api/items')).status).toBe(401);
    // The revoked key's open stream on B ends at its next keep-alive.
    await keyStream.ended;

    expect((await router.as(signedIn.token).post('/auth/logout')).status).toBe(200);
    expect((await new HttpClient(processB().url, signedIn.token).get('/api/me')).status).toBe(401);
    expect((await new HttpClient(processA().url, signedIn.token).get('/api/me')).status).toBe(401);
  }, 60_000);

  it('each job runs once across the two workers: one callback per item, no duplicate', async () => {
    const account = await factories.account('owner');
    const receiver = await startReceiver();
    const router = new HttpClient(cluster.url, account.token);
    const items = 40;
    try {
      const ids: string[] = [];
      for (let i = 0; i < items; i += 10) {
        const batch = await Promise.all(
          Array.from({ length: 10 }, (_, k) =>
            router.post<{ id: string }>('/api/items', {
              title: `job ${i + k}`,
              callback_url: `${receiver.url}/cb`,
            }),
          ),
        );
        ids.push(...batch.map((r) => r.body.id));
      }
      await Promise.all(ids.map((id) => router.post(`/api/items/${id}/dismiss`)));
      const pending = async () =>
        Number(
          (
            await client.sql<{ n: number }[]>`
              select count(*)::int as n from graphile_worker.jobs where task_identifier = 'deliver_callback'`
          )[0]?.n,
        );
      const arrived = () => new Set(receiver.received.map((d) => JSON.parse(d.body).item_id)).size;
      expect(await eventually(() => arrived() === items, 60_000)).toBe(true);
      // Nothing left to run: a second run of any job would have arrived by now.
      expect(await eventually(async () => (await pending()) === 0, 30_000)).toBe(true);

      const deliveries = receiver.received.map((d) => String(d.headers['x-service-delivery']));
      expect(new Set(deliveries).size).toBe(items);
      expect(receiver.received).toHaveLength(items);
      expect(new Set(receiver.received.map((d) => JSON.parse(d.body).item_id))).toEqual(new Set(ids));
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it('kill -9 of one resource process mid-load: no acknowledged write is lost, the other keeps answering', async () => {
    const account = await factories.account('owner');
    const key = await factories.apiKey(account.org.id, account.user.id);
    const router = new HttpClient(cluster.url, key.token);
    const survivor = new HttpClient(processB().url, account.token);
    const acknowledged: string[] = [];
    const routerFailures: number[] = [];
    const survivorAnswers: number[] = [];
    let killedAt = 0;
    let ackedAfterKill = 0;
    let running = true;

    const writer = async (n: number) => {
      for (let i = 0; running; i++) {
        const response = await router
          .post<{ id: string }>('/api/items', { title: `load ${n}.${i}` })
          .catch(() => null);
        if (response?.status === 201) {
          acknowledged.push(response.body.id);
          if (killedAt) ackedAfterKill++;
        } else routerFailures.push(response?.status ?? 0);
      }
    };
    const reader = async () => {
      while (running) survivorAnswers.push((await survivor.get('/api/me').catch(() => null))?.status ?? 0);
    };
    const load = [...Array.from({ length: 6 }, (_, n) => writer(n)), reader()];

    expect(await eventually(() => acknowledged.length >= 100, 30_000)).toBe(true);
    // The router has been sending writes to A too (its own count of them).
    expect(await createdOn(processA().url)).toBeGreaterThan(0);
    processA().run.kill();
    killedAt = Date.now();
    const answersBeforeKill = survivorAnswers.length;
    await processA().run.exited;
    expect(await eventually(() => ackedAfterKill >= 100, 60_000)).toBe(true);
    running = false;
    await Promise.all(load);

    const stored = await client.sql<{ n: number }[]>`
      select count(*)::int as n from items where id = any(${acknowledged}::uuid[])`;
    expect(stored[0]?.n).toBe(acknowledged.length);
    expect(survivorAnswers.length).toBeGreaterThan(answersBeforeKill);
    expect(survivorAnswers.filter((status) => status !== 200)).toEqual([]);
    console.log(
      `[deployment] kill -9 of one of two resource processes under load through the router: ` +
        `${acknowledged.length} items acknowledged (${ackedAfterKill} after the kill), all stored; ` +
        `${routerFailures.length} requests failed at the router (${[...new Set(routerFailures)].join(', ')}); ` +
        `${survivorAnswers.length} requests straight to the survivor, all 200`,
    );
  }, 120_000);
});
