import { part, statementOf } from '@beckon/server/statement-parts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';

/**
 * What follows an item change is one statement of parts (record-change.ts): its audit entry, its
 * event, the jobs of its webhooks, callback, notifications and schedule. The worker is off here,
 * so the jobs the statement added stay in the queue to be counted.
 */
let server: TestServer;
let owner: HttpClient;
let agent: HttpClient;
let orgId: string;
let userId: string;

const FORM = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?', required: true }] };

beforeAll(async () => {
  server = await startTestServer();
  const factories = new Factories(server.database.db);
  const account = await factories.account('owner');
  owner = server.resource.as(account.token);
  agent = server.resource.as((await factories.apiKey(account.org.id, account.user.id)).token);
  orgId = account.org.id;
  userId = account.user.id;
  await server.database.sql`insert into devices (user_id, org_id, device_token, platform)
    values (${userId}, ${orgId}, ${`device-${userId}`}, 'mobile')`;
  const hook = await owner.post('/api/webhooks', {
    name: 'all',
    url: 'https://hooks.example.com/in',
    events: ['*'],
  });
  expect(hook.status).toBe(201);
});
afterAll(async () => {
  await server?.close();
});

/** The queue's jobs of an item, task by task. */
async function jobsOf(itemId: string): Promise<Record<string, number>> {
  const rows = await server.database.sql<{ task: string; count: number }[]>`
    select t.identifier as task, count(*)::int as count
      from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
     where j.payload->>'item_id' = ${itemId}
        or j.payload->>'event_id' in (select id::text from events where item_id = ${itemId})
        or j.payload->>'entry_id' in (select id::text from push_queue where item_id = ${itemId})
     group by t.identifier`;
  return Object.fromEntries(rows.map((r) => [r.task, r.count]));
}

const tracesOf = async (itemId: string) => {
  const [row] = await server.database.sql<{ audit: string[]; events: string[] }[]>`
    select array(select action from audit_entries where item_id = ${itemId} order by seq) as audit,
           array(select type from events where item_id = ${itemId} order by id) as events`;
  return row!;
};

describe('recording an item change', () => {
  it('runs every part of the statement, each read back', async () => {
    await server.database.sql.begin(async (tx) => {
      await tx`create temporary table ran (name text) on commit drop`;
      // SELECT parts with a side effect, and a write: a part the statement did not read would not run.
      const parts = [
        part('one', tx`select set_config('beckon.part_one', 'ran', true)`),
        part('two', tx`select set_config('beckon.part_two', n::text, true) from generate_series(1, 3) n`),
        part('three', tx`insert into ran values ('three') returning name`),
      ];
      const [row] = await statementOf(tx, parts, tx`'answer'`);
      expect(row?.result).toBe('answer');
      const [ran] = await tx`select current_setting('beckon.part_one', true) as one,
        current_setting('beckon.part_two', true) as two, (select array_agg(name) from ran) as three`;
      expect(ran).toEqual({ one: 'ran', two: '3', three: ['three'] });
    });
  });

  it('writes a new item with all that follows it in one statement', async () => {
    // Asked by an agent: the person assigned is told (a creator never is).
    const created = await agent.post<{ id: string }>('/api/items', {
      title: 'Everything at once',
      form: FORM,
      callback_url: 'https://agent.example.com/done',
      deadline_at: new Date(Date.now() + 3_600_000).toISOString(),
      escalation: [{ after: 'PT30M', action: 'remind' }],
      repeat_until_ack: { every_minutes: 10 },
      assignees: [{ type: 'user', id: userId }],
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(await tracesOf(id)).toEqual({ audit: ['item.create'], events: ['item.created'] });
    expect(await jobsOf(id)).toEqual({
      deliver_webhook: 1,
      expire_item: 1,
      escalate_item: 1,
      repeat_item: 1,
      deliver_push: 1,
    });
  });

  it('removes the scheduled jobs of an item that leaves open, and reports the decision', async () => {
    const created = await owner.post<{ id: string }>('/api/items', {
      title: 'Decide me',
      form: FORM,
      callback_url: 'https://agent.example.com/done',
      deadline_at: new Date(Date.now() + 3_600_000).toISOString(),
      escalation: [{ after: 'PT30M', action: 'remind' }],
      repeat_until_ack: { every_minutes: 10 },
    });
    const id = created.body.id;
    const answered = await owner.post(`/api/items/${id}/answer`, { values: { ok: true } });
    expect(answered.status).toBe(200);
    expect(await tracesOf(id)).toEqual({
      audit: ['item.create', 'item.answer'],
      events: ['item.created', 'item.answered'],
    });
    // The item's own answer reaches its callback and the webhook; what waited on it is gone.
    expect(await jobsOf(id)).toEqual({ deliver_webhook: 2, deliver_callback: 1 });
  });
});
