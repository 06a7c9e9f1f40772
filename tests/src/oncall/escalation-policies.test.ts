import type { ItemView } from '@beckon/contracts/items/item.contract';
import type { EscalationPolicyView } from '@beckon/contracts/schedules/escalation-policies.contract';
import { startWorker, type WorkerHandle } from '@beckon/server/jobs/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';

/**
 * Named escalation policies: levels of users, teams and schedules, a delay each, the whole run
 * repeated. An item copies its policy as steps; they run as in tests/src/items/escalation.test.ts
 * (the pending job made due now, as the queue's clock would), schedules resolved at each level.
 */

type Person = { id: string; api: HttpClient };
type ErrorBody = { code: string; fields?: Record<string, string>; channels?: string[]; templates?: string[] };

let server: TestServer;
let worker: WorkerHandle | undefined;
let owner: Person;
let alice: Person;
let bob: Person;
let carol: Person;
let other: HttpClient;
let primary: string;
let foreignSchedule: string;

beforeAll(async () => {
  server = await startTestServer();
  worker = await startWorker(server.deps, server.database.url);
  const f = new Factories(server.database.db);
  const org = await f.team(server.resource);
  owner = { id: org.user.id, api: org.owner };
  [alice, bob, carol] = [await org.join('member'), await org.join('member'), await org.join('member')];
  primary = (
    await owner.api.post<{ id: string }>('/api/schedules', {
      name: 'primary',
      time_zone: 'UTC',
      layers: [
        {
          members: [{ type: 'user', id: alice.id }],
          start: '2020-01-01T00:00',
          turn: { unit: 'day', count: 1 },
        },
      ],
    })
  ).body.id;
  const theirs = await f.team(server.resource);
  other = theirs.owner;
  const theirTarget = [{ type: 'user', id: theirs.user.id }];
  foreignSchedule = (
    await other.post<{ id: string }>('/api/schedules', {
      name: 'theirs',
      time_zone: 'UTC',
      layers: [{ members: theirTarget, start: '2020-01-01T00:00', turn: { unit: 'day', count: 1 } }],
    })
  ).body.id;
});
afterAll(async () => {
  await worker?.stop();
  await server?.close();
});

const get = async (itemId: string) => (await owner.api.get<ItemView>(`/api/items/${itemId}`)).body;

const until = async (condition: () => Promise<boolean>, what: string) => {
  for (let i = 0; i < 400; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
};

async function fireNext(itemId: string) {
  const before = (await get(itemId)).escalation_step;
  await server.database.sql`
    update graphile_worker._private_jobs set run_at = now() where key = ${`escalate_item:${itemId}`}`;
  await until(async () => (await get(itemId)).escalation_step === before + 1, `step ${before}`);
}

const lastEscalation = async (itemId: string) => {
  const [entry] = await server.database.sql<{ data: Record<string, unknown> }[]>`
    select data from audit_entries where item_id = ${itemId} and action = 'item.escalate' order by id desc limit 1`;
  return entry?.data;
};

const LEVELS = () => [
  { targets: [{ type: 'schedule', id: primary }], delay_minutes: 10 },
  { targets: [{ type: 'user', id: bob.id }], delay_minutes: 20 },
];

describe('escalation policies', () => {
  it('are created, listed, read, replaced and deleted by name, audited, within the organization', async () => {
    const created = await owner.api.post<EscalationPolicyView>('/api/escalation-policies', {
      name: 'ops',
      levels: LEVELS(),
      repeats: 1,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'ops', description: '', levels: LEVELS(), repeats: 1 });
    const id = created.body.id;
    expect(
      (await alice.api.get<EscalationPolicyView[]>('/api/escalation-policies')).body.map((p) => p.id),
    ).toEqual([id]);
    const taken = await owner.api.post<ErrorBody>('/api/escalation-policies', {
      name: 'ops',
      levels: LEVELS(),
    });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('name_taken');
    const replaced = await owner.api.put<EscalationPolicyView>(`/api/escalation-policies/${id}`, {
      name: 'ops-2',
      levels: LEVELS().slice(0, 1),
    });
    expect(replaced.body).toMatchObject({ name: 'ops-2', repeats: 0, levels: LEVELS().slice(0, 1) });
    const foreign = await other.get<ErrorBody>(`/api/escalation-policies/${id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('not_found');
    const deleted = await owner.api.delete<EscalationPolicyView>(`/api/escalation-policies/${id}`);
    expect(deleted.status).toBe(200);
    expect((await owner.api.get(`/api/escalation-policies/${id}`)).status).toBe(404);
    const actions = await server.database.sql<{ action: string }[]>`
      select action from audit_entries where data->>'policy_id' = ${id} order by id`;
    expect(actions.map((a) => a.action)).toEqual([
      'escalation_policy.create',
      'escalation_policy.update',
      'escalation_policy.delete',
    ]);
  });

  it('refuses unknown targets, empty levels, delays and repeats out of bounds (400)', async () => {
    const unknown = await owner.api.post<ErrorBody>('/api/escalation-policies', {
      name: 'bad',
      levels: [
        {
          targets: [
            { type: 'user', id: bob.id },
            { type: 'schedule', id: foreignSchedule },
          ],
          delay_minutes: 5,
        },
      ],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.fields).toEqual({ 'levels.0.targets.1': 'unknown schedule' });
    for (const body of [
      { name: 'bad', levels: [] },
      { name: 'bad', levels: [{ targets: [], delay_minutes: 5 }] },
      { name: 'bad', levels: [{ targets: [{ type: 'user', id: bob.id }], delay_minutes: 0 }] },
      { name: 'bad', levels: LEVELS(), repeats: 6 },
      { name: 'bad', levels: [{ targets: [{ type: 'role', name: 'admin' }], delay_minutes: 5 }] },
    ]) {
      const res = await owner.api.post<ErrorBody>('/api/escalation-policies', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('invalid_request');
    }
  });

  it('runs as an item’s steps: first level at creation, each level after its delay, repeated, schedules resolved each time', async () => {
    const policy = (
      await owner.api.post<EscalationPolicyView>('/api/escalation-policies', {
        name: 'paging',
        levels: LEVELS(),
        repeats: 1,
      })
    ).body;
    const created = await owner.api.post<ItemView>('/api/items', {
      title: 'API down',
      escalation_policy_id: policy.id,
    });
    expect(created.status).toBe(201);
    const item = created.body;
    expect(item.escalation_policy_id).toBe(policy.id);
    expect(item.assignees).toEqual([
      { type: 'schedule', id: primary },
      { type: 'user', id: alice.id },
    ]);
    expect(item.escalation).toEqual([
      { after: 'PT10M', action: 'escalate', to: [{ type: 'user', id: bob.id }] },
      { after: 'PT30M', action: 'escalate', to: [{ type: 'schedule', id: primary }] },
      { after: 'PT40M', action: 'escalate', to: [{ type: 'user', id: bob.id }] },
    ]);
    expect(item.next_escalation_at).toBe(new Date(Date.parse(item.created_at) + 10 * 60_000).toISOString());

    await fireNext(item.id);
    expect(await lastEscalation(item.id)).toMatchObject({ step: 0, recipients: [bob.id] });
    // Carol takes over the schedule before the policy runs again: the repeat reaches her.
    const now = Date.now();
    await owner.api.post(`/api/schedules/${primary}/overrides`, {
      user_id: carol.id,
      starts_at: new Date(now - 60_000).toISOString(),
      ends_at: new Date(now + 3_600_000).toISOString(),
    });
    await fireNext(item.id);
    expect(await lastEscalation(item.id)).toMatchObject({
      step: 1,
      recipients: [carol.id],
      on_call: [{ schedule_id: primary, user_id: carol.id }],
    });
    await fireNext(item.id);
    expect(await lastEscalation(item.id)).toMatchObject({ step: 2, recipients: [bob.id] });
    const done = await get(item.id);
    expect(done.assignees).toEqual([
      { type: 'schedule', id: primary },
      { type: 'user', id: alice.id },
      { type: 'user', id: bob.id },
      { type: 'user', id: carol.id },
    ]);
    expect(done.next_escalation_at).toBeNull();
  });

  it('is the default of a channel or a template; in use it is not deleted; an item keeps its steps', async () => {
    const policy = (
      await owner.api.post<EscalationPolicyView>('/api/escalation-policies', {
        name: 'shared',
        levels: [{ targets: [{ type: 'user', id: bob.id }], delay_minutes: 15 }],
        repeats: 2,
      })
    ).body;
    const steps = [
      { after: 'PT15M', action: 'escalate', to: [{ type: 'user', id: bob.id }] },
      { after: 'PT30M', action: 'escalate', to: [{ type: 'user', id: bob.id }] },
    ];
    const channel = await owner.api.post<{ id: string; escalation_policy_id: string }>('/api/channels', {
      name: 'incidents',
      mode: 'open',
      escalation_policy_id: policy.id,
    });
    expect(channel.status).toBe(201);
    expect(channel.body.escalation_policy_id).toBe(policy.id);
    const fromChannel = await owner.api.post<ItemView>('/api/items', {
      title: 'a',
      channel_id: channel.body.id,
    });
    expect(fromChannel.body).toMatchObject({ escalation_policy_id: policy.id, escalation: steps });
    expect(fromChannel.body.assignees).toEqual([{ type: 'user', id: bob.id }]);
    // The item's own inline steps win over its channel's policy.
    const own = await owner.api.post<ItemView>('/api/items', {
      title: 'b',
      channel_id: channel.body.id,
      escalation: [{ after: 'PT1H', action: 'remind' }],
    });
    expect(own.body).toMatchObject({
      escalation_policy_id: null,
      escalation: [{ after: 'PT1H', action: 'remind' }],
    });
    const template = await owner.api.post('/api/templates', {
      name: 'incident',
      fields: { title: 'Incident', escalation_policy_id: policy.id },
    });
    expect(template.status).toBe(200);
    const fromTemplate = await owner.api.post<ItemView>('/api/items', { template: 'incident' });
    expect(fromTemplate.body).toMatchObject({ escalation_policy_id: policy.id, escalation: steps });

    const inUse = await owner.api.delete<ErrorBody>(`/api/escalation-policies/${policy.id}`);
    expect(inUse.status).toBe(409);
    expect(inUse.body).toMatchObject({
      code: 'policy_in_use',
      channels: ['incidents'],
      templates: ['incident'],
    });
    const lone = (
      await owner.api.post<EscalationPolicyView>('/api/escalation-policies', {
        name: 'lone',
        levels: [{ targets: [{ type: 'user', id: bob.id }], delay_minutes: 5 }],
        repeats: 1,
      })
    ).body;
    const item = (await owner.api.post<ItemView>('/api/items', { title: 'c', escalation_policy_id: lone.id }))
      .body;
    expect((await owner.api.delete(`/api/escalation-policies/${lone.id}`)).status).toBe(200);
    expect(await get(item.id)).toMatchObject({
      escalation_policy_id: null,
      escalation: [{ after: 'PT5M', action: 'escalate', to: [{ type: 'user', id: bob.id }] }],
    });
  });

  it('refuses an unknown policy, and both kinds of escalation at once (400; foreign ones: the sweeps)', async () => {
    const mine = (await owner.api.get<EscalationPolicyView[]>('/api/escalation-policies')).body[0]?.id;
    const unknown = '0190a0a0-0000-7000-8000-000000000000';
    const item = await owner.api.post<ErrorBody>('/api/items', { title: 'x', escalation_policy_id: unknown });
    expect(item.body).toMatchObject({
      code: 'invalid_request',
      fields: { escalation_policy_id: 'unknown escalation policy' },
    });
    const both = await owner.api.post<ErrorBody>('/api/items', {
      title: 'x',
      escalation_policy_id: mine,
      escalation: [{ after: 'PT1H', action: 'remind' }],
    });
    expect(both.body.fields).toEqual({
      escalation_policy_id: 'give escalation or escalation_policy_id, not both',
    });
    const template = await owner.api.post<ErrorBody>('/api/templates', {
      name: 'x',
      fields: { escalation_policy_id: unknown },
    });
    expect(template.body.fields).toEqual({ 'fields.escalation_policy_id': 'unknown escalation policy' });
  });
});
