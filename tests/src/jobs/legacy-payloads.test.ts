import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, receiverPool, startTestServer, type TestServer } from '../harness';

/**
 * Every job payload carries its organization (server/src/job-tasks.ts) and each job's lookups
 * filter on it. A job queued by an older version, without `org_id`, still runs: its organization
 * is read from the row it names (server/src/jobs/job-org.ts). These jobs are added here in SQL,
 * the way the older version added them.
 */

type Item = { id: string; status: string };

let server: TestServer;
let f: Factories;
const receivers = receiverPool();

beforeAll(async () => {
  server = await startTestServer({ worker: true });
  f = new Factories(server.database.db);
});
afterAll(async () => {
  await receivers.closeAll();
  await server?.close();
});

async function owner() {
  const account = await f.account('owner');
  await server.database.sql`
    update subscriptions set plan_id = (select id from plans where code = 'team') where org_id = ${account.org.id}`;
  return { ...account, api: server.resource.as(account.token) };
}

const until = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 200 && !(await check()); i++) await new Promise((r) => setTimeout(r, 50));
  expect(await check()).toBe(true);
};

/** Adds a job with exactly this payload (no org_id unless given) under its own key. */
async function addRawJob(task: string, payload: Record<string, unknown>) {
  const key = `legacy:${randomUUID()}`;
  await server.database.sql`
    select graphile_worker.add_job(${task}, ${server.database.sql.json(payload as never)}::json, job_key => ${key})`;
  return key;
}

/** Done: gone from the queue (a job that threw stays, waiting for its next attempt). */
const finished = async (key: string) =>
  (await server.database.sql`select 1 from graphile_worker.jobs where key = ${key}`).length === 0;

/** An open item whose deadline has passed, its own expiry job not yet due. */
async function overdueItem(api: ReturnType<typeof server.resource.as>) {
  const deadline = new Date(Date.now() + 3600_000).toISOString();
  const item = (await api.post<Item>('/api/items', { title: 'overdue', deadline_at: deadline })).body;
  await server.database.sql`update items set deadline_at = now() - interval '1 second' where id = ${item.id}`;
  return item;
}

describe('jobs queued without org_id', () => {
  it('expire_item reads the organization from the item and expires it', async () => {
    const { api } = await owner();
    const item = await overdueItem(api);
    const key = await addRawJob('expire_item', { item_id: item.id });
    await until(() => finished(key));
    expect((await api.get<Item>(`/api/items/${item.id}`)).body.status).toBe('expired');
  });

  it('expire_item naming an item that is gone has nothing to do', async () => {
    const key = await addRawJob('expire_item', { item_id: randomUUID() });
    await until(() => finished(key));
  });

  it('repeat_item reads the organization from the item and notifies again', async () => {
    const { api } = await owner();
    const item = (
      await api.post<Item>('/api/items', { title: 'again', repeat_until_ack: { every_minutes: 60 } })
    ).body;
    const key = await addRawJob('repeat_item', { item_id: item.id, round: 0 });
    await until(() => finished(key));
    const repeated = await server.database.sql`
      select 1 from audit_entries where item_id = ${item.id} and action = 'item.repeat'`;
    expect(repeated).toHaveLength(1);
  });

  it('deliver_webhook (a first attempt) reads the organization from the webhook and delivers', async () => {
    const { api } = await owner();
    const hook = await receivers.start();
    const created = await api.post<{ id: string }>('/api/webhooks', {
      name: 'all',
      url: hook.url,
      events: ['*'],
    });
    const item = (await api.post<Item>('/api/items', { title: 'delivered twice' })).body;
    await hook.waitFor(1);
    const [event] = await server.database.sql<{ id: string }[]>`
      select id from events where item_id = ${item.id} and type = 'item.created'`;
    const deliveryId = randomUUID();
    await addRawJob('deliver_webhook', {
      webhook_id: created.body.id,
      event_id: event!.id,
      delivery_id: deliveryId,
      attempt: 1,
    });
    const received = await hook.waitFor(2);
    expect(received[1]!.headers['x-service-delivery']).toBe(deliveryId);
    expect(JSON.parse(received[1]!.body)).toMatchObject({ id: event!.id, type: 'item.created' });
  });
});

describe('jobs carrying org_id', () => {
  it("expire_item naming another organization leaves the item alone (lookups filter on the payload's)", async () => {
    const { api } = await owner();
    const other = await f.account('owner');
    const item = await overdueItem(api);
    const key = await addRawJob('expire_item', { item_id: item.id, org_id: other.org.id });
    await until(() => finished(key));
    expect((await api.get<Item>(`/api/items/${item.id}`)).body.status).toBe('open');
  });
});
