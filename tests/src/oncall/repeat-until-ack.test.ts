import type { ItemView } from '@beckon/contracts/items/item.contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMailingServer } from '../email/setup';

/**
 * Items that ask for it (`repeat_until_ack`) notify whoever they wait for again every few
 * minutes, by push and by mail, until someone acknowledges them. Each notification again is a
 * `repeat_item` job: the tests make the pending one due now, as the queue's clock would.
 */

type Job = { id: string; run_at: Date; payload: { item_id: string; round: number } };

let env: Awaited<ReturnType<typeof startMailingServer>>;
let team: Awaited<ReturnType<Awaited<ReturnType<typeof startMailingServer>>['team']>>;
let alice: Awaited<ReturnType<typeof team.person>>;
let bob: Awaited<ReturnType<typeof team.person>>;

const MINUTE = 60_000;
const FORM = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?', required: true }] };

beforeAll(async () => {
  env = await startMailingServer();
  team = await env.team();
  alice = await team.person();
  bob = await team.person();
  await alice.api.post('/api/push/register', { device_token: `phone-${alice.id}`, platform: 'mobile' });
});
afterAll(() => env?.close());

const sql = () => env.server.database.sql;

const pendingJob = async (itemId: string) => {
  const [job] = await sql()<Job[]>`
    select id, run_at, payload from graphile_worker._private_jobs where key = ${`repeat_item:${itemId}`}`;
  return job;
};

const repeats = async (itemId: string) =>
  sql()<{ actor_type: string; data: Record<string, unknown> }[]>`
    select actor_type, data from audit_entries where item_id = ${itemId} and action = 'item.repeat' order by id`;

const pushTitles = async (itemId: string, userId: string) =>
  (
    await sql()<{ title: string }[]>`
      select payload->>'title' as title from push_queue where item_id = ${itemId} and user_id = ${userId}
       order by created_at`
  ).map((row) => row.title);

/** Makes the pending notification again due now and waits until it has run. */
async function fireNext(itemId: string) {
  const before = (await repeats(itemId)).length;
  const job = await pendingJob(itemId);
  expect(job, 'a pending notification again').toBeDefined();
  await sql()`update graphile_worker._private_jobs set run_at = now() where id = ${job?.id ?? ''}`;
  await env.until(async () => (await repeats(itemId)).length === before + 1);
}

describe('repeat until acknowledged', () => {
  it('notifies the assignees again at its pace by push and mail until someone acknowledges', async () => {
    const item = await env.ask(team.agent, {
      title: 'Payments are failing',
      level: 'error',
      assignees: [{ type: 'user', id: alice.id }],
      repeat_until_ack: { every_minutes: 5 },
    });
    const created = (await team.owner.get<ItemView>(`/api/items/${item.id}`)).body;
    expect(created).toMatchObject({ repeat_until_ack: { every_minutes: 5 }, acked_at: null, acked_by: null });
    const first = await pendingJob(item.id);
    expect(first?.payload).toMatchObject({ item_id: item.id, round: 0 });
    expect(first?.run_at.getTime()).toBe(Date.parse(created.created_at) + 5 * MINUTE);

    await fireNext(item.id);
    await fireNext(item.id);
    expect(await repeats(item.id)).toEqual([
      { actor_type: 'system', data: { round: 1, every_minutes: 5, recipients: [alice.id] } },
      { actor_type: 'system', data: { round: 2, every_minutes: 5, recipients: [alice.id] } },
    ]);
    expect((await pendingJob(item.id))?.payload).toMatchObject({ round: 2 });
    await env.until(() => env.mailsTo(alice.email).length === 3);
    expect(await pushTitles(item.id, alice.id)).toEqual([
      'Payments are failing',
      'Reminder: Payments are failing',
      'Reminder: Payments are failing',
    ]);
    expect(env.mailsTo(bob.email)).toEqual([]);

    // Bob acknowledges: the repetition stops, and everyone sees who acknowledged.
    const acked = await bob.api.post<ItemView>(`/api/items/${item.id}/ack`);
    expect(acked.status).toBe(200);
    expect(acked.body.acked_by).toEqual({ type: 'user', id: bob.id });
    expect(acked.body.acked_at).not.toBeNull();
    const seen = (await alice.api.get<ItemView>(`/api/items/${item.id}`)).body;
    expect(seen.acked_by).toEqual({ type: 'user', id: bob.id });
    expect(await pendingJob(item.id)).toBeUndefined();
    const [event] = await sql()<{ type: string }[]>`
      select type from events where item_id = ${item.id} and type = 'item.acked'`;
    expect(event?.type).toBe('item.acked');
    const [entry] = await sql()<{ actor_id: string }[]>`
      select actor_id from audit_entries where item_id = ${item.id} and action = 'item.ack'`;
    expect(entry?.actor_id).toBe(bob.id);

    // A stale job (its round already sent, or after the acknowledgement) notifies no one.
    await sql()`select graphile_worker.add_job('repeat_item', json_build_object('item_id', ${item.id}::text, 'round', 2))`;
    await env.until(
      async () =>
        (await sql()`select 1 from graphile_worker.jobs where task_identifier = 'repeat_item'`).length === 0,
    );
    expect(await repeats(item.id)).toHaveLength(2);
    // A second acknowledgement changes nothing: the first one stays.
    const again = await alice.api.post<ItemView>(`/api/items/${item.id}/ack`);
    expect(again.body.acked_by).toEqual({ type: 'user', id: bob.id });
  });

  it('stops when the item is answered, and asks nothing of items that do not ask', async () => {
    const item = await env.ask(team.agent, {
      title: 'Approve the rollback',
      form: FORM,
      assignees: [{ type: 'user', id: alice.id }],
      repeat_until_ack: { every_minutes: 1 },
    });
    expect(await pendingJob(item.id)).toBeDefined();
    const answered = await alice.api.post(`/api/items/${item.id}/answer`, { values: { ok: true } });
    expect(answered.status).toBe(200);
    expect(await pendingJob(item.id)).toBeUndefined();

    const quiet = await env.ask(team.agent, { title: 'FYI', assignees: [{ type: 'user', id: alice.id }] });
    expect((await team.owner.get<ItemView>(`/api/items/${quiet.id}`)).body.repeat_until_ack).toBeNull();
    expect(await pendingJob(quiet.id)).toBeUndefined();
  });

  it('comes from a template, and refuses a pace out of bounds', async () => {
    const template = await team.owner.post('/api/templates', {
      name: 'page',
      fields: { title: 'Page', repeat_until_ack: { every_minutes: 10 } },
    });
    expect(template.status).toBe(200);
    const item = await env.ask(team.agent, { template: 'page' });
    expect((await pendingJob(item.id))?.payload).toMatchObject({ round: 0 });
    for (const every_minutes of [0, 1441, 2.5]) {
      const res = await team.agent.post<{ code: string; fields: Record<string, string> }>('/api/items', {
        title: 'x',
        repeat_until_ack: { every_minutes },
      });
      expect(res.status, String(every_minutes)).toBe(400);
      expect(res.body.code).toBe('invalid_request');
      expect(Object.keys(res.body.fields)).toEqual(['repeat_until_ack.every_minutes']);
    }
  });
});
