import type { ItemView } from '@beckon/contracts/items/item.contract';
import { startWorker, type WorkerHandle } from '@beckon/server/jobs/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, receiverPool, startTestServer, type TestServer } from '../harness';

/**
 * Reminders and escalation run as `escalate_item` jobs due `after` an item's creation. The tests
 * read each job's `run_at` (the time it is due) and then make it due now, as the queue's clock
 * would, instead of waiting for hours.
 */

type Person = { id: string; api: HttpClient };
type Job = { id: string; run_at: Date; payload: { item_id: string; step: number } };

let server: TestServer;
let worker: WorkerHandle | undefined;
let owner: Person;
let alice: Person;
let bob: Person;
let teamId: string;
const receivers = receiverPool();

const MINUTE = 60_000;
const FORM = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?', required: true }] };

beforeAll(async () => {
  server = await startTestServer();
  worker = await startWorker(server.deps, server.database.url);
  const f = new Factories(server.database.db);
  const org = await f.team(server.resource);
  owner = { id: org.user.id, api: org.owner };
  alice = await org.join('member');
  bob = await org.join('member');
  teamId = (await owner.api.post<{ id: string }>('/api/admin/teams', { name: 'Leads' })).body.id;
  await owner.api.post(`/api/admin/teams/${teamId}/members`, { user_id: bob.id });
  for (const person of [alice, bob]) {
    await person.api.post('/api/push/register', { device_token: `phone-${person.id}`, platform: 'mobile' });
  }
});
afterAll(async () => {
  await worker?.stop();
  await receivers.closeAll();
  await server?.close();
});

const until = async (condition: () => Promise<boolean>, what: string) => {
  for (let i = 0; i < 400; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
};

/** The pending escalation job of an item (one at most: its job key). */
const pendingJob = async (itemId: string) => {
  const [job] = await server.database.sql<Job[]>`
    select id, run_at, payload from graphile_worker._private_jobs where key = ${`escalate_item:${itemId}`}`;
  return job;
};

const get = async (itemId: string) => (await owner.api.get<ItemView>(`/api/items/${itemId}`)).body;

/** Makes the pending step due now (the queue's clock reaching it) and waits until it has run. */
async function fireNext(itemId: string) {
  const before = (await get(itemId)).escalation_step;
  const job = await pendingJob(itemId);
  expect(job, 'a pending step').toBeDefined();
  await server.database.sql`update graphile_worker._private_jobs set run_at = now() where id = ${job!.id}`;
  await until(async () => (await get(itemId)).escalation_step === before + 1, `step ${before}`);
}

const audit = async (itemId: string) =>
  (
    await server.database.sql<{ action: string; actor_type: string; data: { step: number } }[]>`
      select action, actor_type, data from audit_entries
       where item_id = ${itemId} and action in ('item.remind', 'item.escalate') order by id`
  ).map((entry) => [entry.action, entry.actor_type, entry.data.step]);

const events = async (itemId: string) =>
  (
    await server.database.sql<{ type: string }[]>`
      select type from events where item_id = ${itemId} and type in ('item.reminded', 'item.escalated') order by seq`
  ).map((event) => event.type);

const pushes = async (itemId: string) =>
  server.database.sql<{ user_id: string; title: string }[]>`
    select user_id, payload->>'title' as title from push_queue where item_id = ${itemId}
     order by created_at, user_id`;

const POLICY = [
  { after: 'PT30M', action: 'remind' },
  { after: 'PT2H', action: 'escalate', to: [{ type: 'team', id: '' }] },
  { after: 'P1D', action: 'remind' },
];
const policy = () => POLICY.map((step) => (step.to ? { ...step, to: [{ type: 'team', id: teamId }] } : step));

describe('escalation policies', () => {
  it('runs each step once, in order, at its time: audit, stream event, webhook, pushes to the new recipients', async () => {
    const hook = await receivers.start();
    const webhook = await owner.api.post('/api/webhooks', {
      name: 'escalations',
      url: hook.url,
      events: ['item.reminded', 'item.escalated'],
    });
    expect(webhook.status).toBe(201);
    const created = await owner.api.post<ItemView>('/api/items', {
      title: 'Sign the contract',
      assignees: [{ type: 'user', id: alice.id }],
      escalation: policy(),
    });
    expect(created.status).toBe(201);
    const item = created.body;
    const createdAt = Date.parse(item.created_at);
    expect(item.escalation).toEqual(policy());
    expect(item.next_escalation_at).toBe(new Date(createdAt + 30 * MINUTE).toISOString());

    const dueTimes = [30 * MINUTE, 120 * MINUTE, 24 * 60 * MINUTE];
    for (const [step, due] of dueTimes.entries()) {
      const job = await pendingJob(item.id);
      // With the id of the request that created the item (job-queue.ts), for the logs.
      expect(job?.payload).toMatchObject({ item_id: item.id, step });
      expect(job?.run_at.getTime()).toBe(createdAt + due);
      expect((await get(item.id)).escalation_step).toBe(step);
      await fireNext(item.id);
    }
    // The last step's job row goes once the worker has finished it (just after its commit).
    await until(async () => (await pendingJob(item.id)) === undefined, 'the last step job done');
    const done = await get(item.id);
    expect(done).toMatchObject({ escalation_step: 3, next_escalation_at: null, status: 'open' });
    // The escalation added the team to the assignees.
    expect(done.assignees).toEqual([
      { type: 'user', id: alice.id },
      { type: 'team', id: teamId },
    ]);
    expect(await audit(item.id)).toEqual([
      ['item.remind', 'system', 0],
      ['item.escalate', 'system', 1],
      ['item.remind', 'system', 2],
    ]);
    expect(await events(item.id)).toEqual(['item.reminded', 'item.escalated', 'item.reminded']);
    const received = await hook.waitFor(3);
    expect(received.map((r) => r.headers['x-service-event']).sort()).toEqual(
      ['item.escalated', 'item.reminded', 'item.reminded'].sort(),
    );
    expect(JSON.parse(received[0]!.body)).toMatchObject({ data: { item: { id: item.id } } });
    // Alice at creation and at the first reminder; Bob (the team) at the escalation; both at the last reminder.
    expect((await pushes(item.id)).map((p) => [p.user_id, p.title])).toEqual([
      [alice.id, 'Sign the contract'],
      [alice.id, 'Reminder: Sign the contract'],
      [bob.id, 'Escalated: Sign the contract'],
      ...[
        [alice.id, 'Reminder: Sign the contract'],
        [bob.id, 'Reminder: Sign the contract'],
      ].sort((a, b) => a[0]!.localeCompare(b[0]!)),
    ]);
  });

  it('stops as soon as the item leaves open; a stale job does nothing; restoring resumes', async () => {
    const item = (
      await owner.api.post<ItemView>('/api/items', { title: 'Answer me', form: FORM, escalation: policy() })
    ).body;
    expect(await pendingJob(item.id)).toBeDefined();
    await owner.api.post(`/api/items/${item.id}/dismiss`);
    expect(await pendingJob(item.id)).toBeUndefined();
    expect((await get(item.id)).next_escalation_at).toBeNull();
    // A job for the step that was due runs and changes nothing (the item is not open).
    const [stale] = await server.database.sql<{ id: string }[]>`
      select (graphile_worker.add_job('escalate_item', json_build_object('item_id', ${item.id}::uuid, 'step', 0))).id`;
    await until(
      async () =>
        (await server.database.sql`select 1 from graphile_worker._private_jobs where id = ${stale!.id}`)
          .length === 0,
      'the stale job',
    );
    expect(await audit(item.id)).toEqual([]);
    // Back to open: the pending step is scheduled again, at its time.
    await owner.api.post(`/api/items/${item.id}/restore`);
    expect((await pendingJob(item.id))?.run_at.getTime()).toBe(Date.parse(item.created_at) + 30 * MINUTE);
    await owner.api.post(`/api/items/${item.id}/answer`, { values: { ok: true } });
    expect(await pendingJob(item.id)).toBeUndefined();
  });

  it('loses and repeats no step across a restart of the worker', async () => {
    const item = (await owner.api.post<ItemView>('/api/items', { title: 'Restart', escalation: policy() }))
      .body;
    await worker?.stop();
    worker = undefined;
    // Due while no worker runs: nothing happens, the job waits.
    const job = await pendingJob(item.id);
    await server.database.sql`update graphile_worker._private_jobs set run_at = now() where id = ${job!.id}`;
    expect((await get(item.id)).escalation_step).toBe(0);
    worker = await startWorker(server.deps, server.database.url);
    await until(async () => (await get(item.id)).escalation_step === 1, 'the step after the restart');
    // The step's job again, as when a worker dies after the step committed and before the queue
    // recorded the job done: it finds the step recorded on the item and does nothing.
    const [again] = await server.database.sql<{ id: string }[]>`
      select (graphile_worker.add_job('escalate_item', json_build_object('item_id', ${item.id}::uuid, 'step', 0))).id`;
    await until(
      async () =>
        (await server.database.sql`select 1 from graphile_worker._private_jobs where id = ${again!.id}`)
          .length === 0,
      'the repeated job',
    );
    expect(await audit(item.id)).toEqual([['item.remind', 'system', 0]]);
    expect((await pendingJob(item.id))?.payload).toMatchObject({ item_id: item.id, step: 1 });
  });

  it('reminds the person who claimed the item rather than all its assignees', async () => {
    const item = (
      await owner.api.post<ItemView>('/api/items', {
        title: 'Claimed',
        assignees: [
          { type: 'team', id: teamId },
          { type: 'user', id: alice.id },
        ],
        escalation: [{ after: 'PT5M', action: 'remind' }],
      })
    ).body;
    await alice.api.post(`/api/items/${item.id}/claim`);
    await fireNext(item.id);
    const reminders = (await pushes(item.id)).filter((p) => p.title.startsWith('Reminder'));
    expect(reminders.map((p) => p.user_id)).toEqual([alice.id]);
  });
});

describe('policy defaults and validation', () => {
  it("takes the channel's policy unless the item or its template names one ([] for none)", async () => {
    const steps = [{ after: 'PT1H', action: 'remind' }];
    const channel = await owner.api.post<{ escalation: unknown }>('/api/channels', {
      name: 'approvals',
      mode: 'open',
      escalation: steps,
    });
    expect(channel.status).toBe(201);
    expect(channel.body.escalation).toEqual(steps);
    const inherits = (await owner.api.post<ItemView>('/api/items', { title: 'a', channel: 'approvals' }))
      .body;
    expect(inherits.escalation).toEqual(steps);
    expect(await pendingJob(inherits.id)).toBeDefined();
    const none = (
      await owner.api.post<ItemView>('/api/items', { title: 'b', channel: 'approvals', escalation: [] })
    ).body;
    expect(none.escalation).toEqual([]);
    expect(await pendingJob(none.id)).toBeUndefined();
    const own = [{ after: 'PT10M', action: 'remind' }];
    await owner.api.post('/api/templates', { name: 'urgent', fields: { escalation: own } });
    const fromTemplate = (
      await owner.api.post<ItemView>('/api/items', { title: 'c', channel: 'approvals', template: 'urgent' })
    ).body;
    expect(fromTemplate.escalation).toEqual(own);
  });

  it('refuses bad durations, steps out of order, too many steps and unknown recipients (400)', async () => {
    const post = (escalation: unknown) => owner.api.post('/api/items', { title: 'x', escalation });
    const bad = await post([{ after: '30 minutes', action: 'remind' }]);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ fields: { 'escalation.0.after': expect.stringContaining('ISO 8601') } });
    expect((await post([{ after: 'PT0S', action: 'remind' }])).status).toBe(400);
    expect((await post([{ after: 'P400D', action: 'remind' }])).status).toBe(400);
    const order = await post([
      { after: 'PT2H', action: 'remind' },
      { after: 'PT1H', action: 'remind' },
    ]);
    expect(order.body).toMatchObject({
      fields: { escalation: 'each step must come after the previous one' },
    });
    const many = Array.from({ length: 11 }, (_, i) => ({ after: `PT${i + 1}M`, action: 'remind' }));
    expect((await post(many)).status).toBe(400);
    expect((await post([{ after: 'PT1H', action: 'escalate', to: [] }])).status).toBe(400);
    const unknown = await post([
      {
        after: 'PT1H',
        action: 'escalate',
        to: [{ type: 'team', id: '0190a0a0-0000-7000-8000-000000000000' }],
      },
    ]);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({
      error: 'invalid request',
      fields: { 'escalation.0.to.0': 'unknown team' },
    });
    const channel = await owner.api.post('/api/channels', {
      name: 'bad',
      mode: 'open',
      escalation: [{ after: 'PT1H', action: 'escalate', to: [{ type: 'role', name: 'nobody' }] }],
    });
    expect(channel.status).toBe(400);
  });
});
