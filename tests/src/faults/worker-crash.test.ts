import { verifySignature } from '@beckon/server/delivery/sign';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, HttpClient, type Received, startReceiver } from '../harness';
import {
  eventually,
  type OwnPostgres,
  openClient,
  type ResourceProcess,
  spawnResource,
  startOwnPostgres,
} from './own-processes';

/**
 * kill -9 of a resource process while callbacks are in flight: every callback still arrives,
 * with the same signed bytes, well within a minute. Short liveness figures keep the test short;
 * docs/security.md ("What survives a crash") has the arithmetic at the defaults.
 */
const LIVENESS = { WORKER_LIVENESS_TIMEOUT_MS: '3000', WORKER_SWEEP_INTERVAL_MS: '1000' };
const ITEMS = 60;

let pg: OwnPostgres;
let client: ReturnType<typeof openClient>;
const processes: ResourceProcess[] = [];

beforeAll(async () => {
  pg = await startOwnPostgres();
  client = openClient(pg.url);
}, 120_000);

afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await client?.end({ timeout: 1 });
  await pg?.close();
});

async function start() {
  const p = await spawnResource(pg.url, LIVENESS);
  processes.push(p);
  return p;
}

/** Items with a callback URL, dismissed: one callback each, queued as fast as the API takes them. */
async function dismissItems(api: HttpClient, callbackUrl: string) {
  const ids: string[] = [];
  for (let i = 0; i < ITEMS; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: 10 }, (_, k) =>
        api.post<{ id: string }>('/api/items', { title: `crash ${i + k}`, callback_url: callbackUrl }),
      ),
    );
    ids.push(...batch.map((r) => r.body.id));
  }
  await Promise.all(ids.map((id) => api.post(`/api/items/${id}/dismiss`)));
  return ids;
}

const lockedJobs = async () =>
  Number(
    (
      await client.sql<{ n: string }[]>`
        select count(*) as n from graphile_worker._private_jobs where locked_by is not null`
    )[0]?.n,
  );

/** Every item's callback arrived; deliveries sent twice carry the same bytes and signature. */
function checkDeliveries(received: Received[], ids: string[], secret: string) {
  const byDelivery = new Map<string, Received[]>();
  for (const d of received) {
    const id = String(d.headers['x-service-delivery']);
    byDelivery.set(id, [...(byDelivery.get(id) ?? []), d]);
  }
  const items = new Set<string>();
  for (const copies of byDelivery.values()) {
    const first = copies[0]!;
    expect(verifySignature(secret, first.body, String(first.headers['x-service-signature']))).toBe(true);
    for (const copy of copies) {
      expect(copy.body).toBe(first.body);
      expect(copy.headers['x-service-signature']).toBe(first.headers['x-service-signature']);
    }
    items.add((JSON.parse(first.body) as { item_id: string }).item_id);
  }
  expect([...items].sort()).toEqual([...ids].sort());
  return { deliveries: byDelivery.size, duplicates: received.length - byDelivery.size };
}

describe('kill -9 of the resource process mid-delivery', () => {
  it('restarted at once: every callback arrives within a minute, same signed bytes', async () => {
    const account = await new Factories(client.db).account('owner');
    const receiver = await startReceiver(undefined, { delayMs: 150 });
    try {
      const first = await start();
      const api = new HttpClient(first.url, account.token);
      const secret = (await api.get<{ callback_secret: string }>('/api/admin/org')).body.callback_secret;
      const ids = await dismissItems(api, `${receiver.url}/cb`);
      expect(await eventually(() => receiver.received.length >= 10, 20_000)).toBe(true);

      first.child.kill('SIGKILL');
      await first.exited;
      const killedAt = Date.now();
      const before = receiver.received.length;
      const held = await lockedJobs();
      expect(held).toBeGreaterThan(0); // the dead worker held jobs

      await start();
      const done = () => new Set(receiver.received.map((d) => JSON.parse(d.body).item_id)).size === ITEMS;
      expect(await eventually(done, 60_000)).toBe(true);
      const recoveredMs = Math.max(...receiver.received.map((d) => d.at)) - killedAt;
      expect(recoveredMs).toBeLessThan(60_000);
      const figures = checkDeliveries(receiver.received, ids, secret);
      expect(await eventually(async () => (await lockedJobs()) === 0, 10_000)).toBe(true);
      console.log(
        `[faults] kill -9 + immediate restart: ${ITEMS} callbacks, ${before} before the kill, ` +
          `${held} jobs held by the dead worker, all delivered ${recoveredMs} ms after the kill, ` +
          `${figures.duplicates} duplicates`,
      );
    } finally {
      await receiver.close();
      for (const p of processes) await p.stop();
    }
  }, 120_000);

  it('with a second process running: it hands back the jobs of the dead one, no restart needed', async () => {
    const account = await new Factories(client.db).account('owner');
    const receiver = await startReceiver(undefined, { delayMs: 150 });
    try {
      const [doomed, survivor] = await Promise.all([start(), start()]);
      const api = new HttpClient(doomed.url, account.token);
      const secret = (await api.get<{ callback_secret: string }>('/api/admin/org')).body.callback_secret;
      const ids = await dismissItems(api, `${receiver.url}/cb`);
      expect(await eventually(() => receiver.received.length >= 10, 20_000)).toBe(true);

      doomed.child.kill('SIGKILL');
      const killedAt = Date.now();
      const done = () => new Set(receiver.received.map((d) => JSON.parse(d.body).item_id)).size === ITEMS;
      expect(await eventually(done, 60_000)).toBe(true);
      const recoveredMs = Math.max(...receiver.received.map((d) => d.at)) - killedAt;
      expect(recoveredMs).toBeLessThan(60_000);
      const figures = checkDeliveries(receiver.received, ids, secret);
      expect(await eventually(async () => (await lockedJobs()) === 0, 10_000)).toBe(true);
      expect(survivor.child.exitCode).toBeNull();
      console.log(
        `[faults] kill -9 with a live peer: ${ITEMS} callbacks, all delivered ${recoveredMs} ms ` +
          `after the kill, ${figures.duplicates} duplicates`,
      );
    } finally {
      await receiver.close();
      for (const p of processes) await p.stop();
    }
  }, 120_000);
});
