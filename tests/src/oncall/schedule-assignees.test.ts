import type { ItemView } from '@beckon/contracts/items/item.contract';
import { startWorker, type WorkerHandle } from '@beckon/server/jobs/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';

/**
 * A schedule as an assignee: whoever is on call is added as a user when the item is created or
 * assigned, and again at each escalation step (the steps run as in tests/src/items/escalation.test.ts:
 * the pending job is made due now, as the queue's clock would).
 */

type Person = { id: string; api: HttpClient };
type Entry = { action: string; data: Record<string, unknown> };

let server: TestServer;
let worker: WorkerHandle | undefined;
let owner: Person;
let alice: Person;
let bob: Person;
let carol: Person;
let other: HttpClient;
let primary: string;
let secondary: string;
let foreignSchedule: string;

const always = (userId: string) => ({
  members: [{ type: 'user', id: userId }],
  start: '2020-01-01T00:00',
  turn: { unit: 'day', count: 1 },
});

beforeAll(async () => {
  server = await startTestServer();
  worker = await startWorker(server.deps, server.database.url);
  const f = new Factories(server.database.db);
  const org = await f.team(server.resource);
  owner = { id: org.user.id, api: org.owner };
  [alice, bob, carol] = [await org.join('member'), await org.join('member'), await org.join('member')];
  const create = async (api: HttpClient, name: string, userId: string) =>
    (await api.post<{ id: string }>('/api/schedules', { name, time_zone: 'UTC', layers: [always(userId)] }))
      .body.id;
  primary = await create(owner.api, 'primary', alice.id);
  secondary = await create(owner.api, 'secondary', bob.id);
  const theirs = await f.team(server.resource);
  other = theirs.owner;
  foreignSchedule = await create(other, 'theirs', theirs.user.id);
});
afterAll(async () => {
  await worker?.stop();
  await server?.close();
});

const get = async (itemId: string) => (await owner.api.get<ItemView>(`/api/items/${itemId}`)).body;

const auditOf = async (itemId: string, action: string) => {
  const [entry] = await server.database.sql<Entry[]>`
    select action, data from audit_entries where item_id = ${itemId} and action = ${action} order by id desc limit 1`;
  return entry;
};

const until = async (condition: () => Promise<boolean>, what: string) => {
  for (let i = 0; i < 400; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
};

async function fireNext(itemId: string) {
  const before = (await get(itemId)).escalation_step;
  const [job] = await server.database.sql<{ id: string }[]>`
    select id from graphile_worker._private_jobs where key = ${`escalate_item:${itemId}`}`;
  expect(job, 'a pending step').toBeDefined();
  await server.database
    .sql`update graphile_worker._private_jobs set run_at = now() where id = ${job?.id ?? ''}`;
  await until(async () => (await get(itemId)).escalation_step === before + 1, `step ${before}`);
}

describe('schedules as assignees', () => {
  it('adds whoever is on call when the item is created, and records it', async () => {
    const res = await owner.api.post<ItemView>('/api/items', {
      title: 'Disk almost full',
      assignees: [{ type: 'schedule', id: primary }],
    });
    expect(res.status).toBe(201);
    expect(res.body.assignees).toEqual([
      { type: 'schedule', id: primary },
      { type: 'user', id: alice.id },
    ]);
    expect(res.body.names[primary]).toBe('primary');
    expect((await auditOf(res.body.id, 'item.create'))?.data).toEqual({
      on_call: [{ schedule_id: primary, user_id: alice.id }],
    });
    const mine = await alice.api.get<{ items: ItemView[] }>('/api/items?assigned_to_me=true');
    expect(mine.body.items.map((i) => i.id)).toContain(res.body.id);
    const notMine = await bob.api.get<{ items: ItemView[] }>('/api/items?assigned_to_me=true');
    expect(notMine.body.items.map((i) => i.id)).not.toContain(res.body.id);
  });

  it('refuses an unknown or foreign schedule wherever an assignee is accepted', async () => {
    const foreign = [{ type: 'schedule', id: foreignSchedule }];
    const item = await owner.api.post<{ fields: Record<string, string> }>('/api/items', {
      title: 'x',
      assignees: foreign,
    });
    expect(item.status).toBe(400);
    expect(item.body.fields).toEqual({ 'assignees.0': 'unknown schedule' });
    const template = await owner.api.post<{ fields: Record<string, string> }>('/api/templates', {
      name: 'bad',
      fields: { escalation: [{ after: 'PT1H', action: 'escalate', to: foreign }] },
    });
    expect(template.body.fields).toEqual({ 'fields.escalation.0.to.0': 'unknown schedule' });
    const channel = await owner.api.post<{ fields: Record<string, string> }>('/api/channels', {
      name: 'bad',
      mode: 'open',
      escalation: [{ after: 'PT1H', action: 'escalate', to: foreign }],
    });
    expect(channel.body.fields).toEqual({ 'escalation.0.to.0': 'unknown schedule' });
  });

  it('resolves a template’s schedule at creation, and an assignment’s when assigned', async () => {
    const template = await owner.api.post('/api/templates', {
      name: 'page-secondary',
      fields: { title: 'Page', assignees: [{ type: 'schedule', id: secondary }] },
    });
    expect(template.status).toBe(200);
    const item = await owner.api.post<ItemView>('/api/items', { template: 'page-secondary' });
    expect(item.body.assignees).toContainEqual({ type: 'user', id: bob.id });
    const assigned = await owner.api.post<ItemView>(`/api/items/${item.body.id}/assign`, {
      assignees: [{ type: 'schedule', id: primary }],
    });
    expect(assigned.status).toBe(200);
    expect(assigned.body.assignees).toEqual([
      { type: 'schedule', id: primary },
      { type: 'user', id: alice.id },
    ]);
    expect((await auditOf(item.body.id, 'item.assign'))?.data).toMatchObject({
      on_call: [{ schedule_id: primary, user_id: alice.id }],
    });
  });

  it('resolves again at each escalation step: a reminder reaches whoever is on call now', async () => {
    const channel = await owner.api.post<{ id: string }>('/api/channels', {
      name: 'paging',
      mode: 'open',
      escalation: [
        { after: 'PT30M', action: 'remind' },
        { after: 'PT1H', action: 'escalate', to: [{ type: 'schedule', id: secondary }] },
      ],
    });
    expect(channel.status).toBe(201);
    const item = await owner.api.post<ItemView>('/api/items', {
      title: 'Database down',
      channel_id: channel.body.id,
      assignees: [{ type: 'schedule', id: primary }],
    });
    expect(item.body.assignees).toEqual([
      { type: 'schedule', id: primary },
      { type: 'user', id: alice.id },
    ]);
    // Carol takes over the primary schedule before the reminder.
    const now = Date.now();
    const override = await owner.api.post(`/api/schedules/${primary}/overrides`, {
      user_id: carol.id,
      starts_at: new Date(now - 60_000).toISOString(),
      ends_at: new Date(now + 3_600_000).toISOString(),
    });
    expect(override.status).toBe(201);
    await fireNext(item.body.id);
    const reminded = await get(item.body.id);
    expect(reminded.assignees).toEqual([
      { type: 'schedule', id: primary },
      { type: 'user', id: alice.id },
      { type: 'user', id: carol.id },
    ]);
    const remind = await auditOf(item.body.id, 'item.remind');
    expect(remind?.data).toMatchObject({ on_call: [{ schedule_id: primary, user_id: carol.id }] });
    expect(remind?.data.recipients).toContain(carol.id);

    await fireNext(item.body.id);
    const escalated = await get(item.body.id);
    expect(escalated.assignees).toEqual([
      ...reminded.assignees,
      { type: 'schedule', id: secondary },
      { type: 'user', id: bob.id },
    ]);
    const escalate = await auditOf(item.body.id, 'item.escalate');
    expect(escalate?.data).toMatchObject({
      recipients: [bob.id],
      on_call: [{ schedule_id: secondary, user_id: bob.id }],
    });
  });

  it('adds no one when nobody is on call', async () => {
    const empty = await owner.api.post<{ id: string }>('/api/schedules', {
      name: 'future',
      time_zone: 'UTC',
      layers: [{ ...always(alice.id), start: '2099-01-01T00:00' }],
    });
    const item = await owner.api.post<ItemView>('/api/items', {
      title: 'Nobody yet',
      assignees: [{ type: 'schedule', id: empty.body.id }],
    });
    expect(item.body.assignees).toEqual([{ type: 'schedule', id: empty.body.id }]);
    expect((await auditOf(item.body.id, 'item.create'))?.data).toEqual({});
  });
});
