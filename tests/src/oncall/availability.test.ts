import type { ItemView } from '@beckon/contracts/items/item.contract';
import type { AvailabilityView, OutOfOfficeView } from '@beckon/contracts/schedules/availability.contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';

/**
 * Working hours and out of office: a person away is replaced by their delegate (notified, put on
 * call, and answering on their behalf); a person outside working hours is not notified while
 * someone else is.
 */

type Person = { id: string; api: HttpClient };
type ErrorBody = { code: string; fields?: Record<string, string> };

let server: TestServer;
let owner: Person;
let alice: Person;
let bob: Person;
let carol: Person;
let dave: Person;
let stranger: string;

const FORM = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?', required: true }] };
const HOUR = 3_600_000;
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

beforeAll(async () => {
  server = await startTestServer();
  const f = new Factories(server.database.db);
  const org = await f.team(server.resource);
  owner = { id: org.user.id, api: org.owner };
  [alice, bob, carol, dave] = [
    await org.join('member'),
    await org.join('member'),
    await org.join('member'),
    await org.join('member'),
  ];
  for (const person of [alice, bob, carol, dave]) {
    await person.api.post('/api/push/register', { device_token: `phone-${person.id}`, platform: 'mobile' });
  }
  stranger = (await f.team(server.resource)).user.id;
});
afterAll(async () => {
  await server?.close();
});

const pushedTo = async (itemId: string) =>
  (
    await server.database.sql<{ user_id: string }[]>`
      select user_id from push_queue where item_id = ${itemId} order by user_id`
  ).map((row) => row.user_id);

const auditData = async (itemId: string, action: string) => {
  const [entry] = await server.database.sql<{ data: Record<string, unknown> }[]>`
    select data from audit_entries where item_id = ${itemId} and action = ${action} order by id desc limit 1`;
  return entry?.data;
};

const away = (person: Person, delegateId?: string) =>
  person.api.post<OutOfOfficeView>('/api/me/out-of-office', {
    starts_at: new Date(Date.now() - HOUR).toISOString(),
    ends_at: new Date(Date.now() + 24 * HOUR).toISOString(),
    ...(delegateId ? { delegate_id: delegateId } : {}),
  });

describe('availability', () => {
  it('is each person’s own: working hours and out-of-office periods, checked', async () => {
    const empty = await carol.api.get<AvailabilityView>('/api/me/availability');
    expect(empty.body).toEqual({ user_id: carol.id, working_hours: null, out_of_office: [] });
    const hours = {
      time_zone: 'Europe/Paris',
      windows: [{ days: ['mon', 'tue'], from: '09:00', to: '18:00' }],
    };
    const set = await carol.api.put<AvailabilityView>('/api/me/availability', { working_hours: hours });
    expect(set.status).toBe(200);
    expect(set.body.working_hours).toEqual(hours);
    const badZone = await carol.api.put<ErrorBody>('/api/me/availability', {
      working_hours: { ...hours, time_zone: 'Mars/Olympus' },
    });
    expect(badZone.status).toBe(400);
    expect(Object.keys(badZone.body.fields ?? {})).toEqual(['working_hours.time_zone']);
    const cleared = await carol.api.put<AvailabilityView>('/api/me/availability', { working_hours: null });
    expect(cleared.body.working_hours).toBeNull();

    const foreign = await away(carol, stranger);
    expect(foreign.status).toBe(400);
    expect((foreign.body as unknown as ErrorBody).fields).toEqual({ delegate_id: 'unknown user' });
    const self = await away(carol, carol.id);
    expect((self.body as unknown as ErrorBody).fields).toEqual({ delegate_id: 'must be someone else' });
    const period = await away(carol, dave.id);
    expect(period.status).toBe(201);
    expect((await carol.api.get<AvailabilityView>('/api/me/availability')).body.out_of_office).toEqual([
      period.body,
    ]);
    // Someone else's period is not found; the owner deletes their own.
    const notTheirs = await dave.api.delete<ErrorBody>(`/api/me/out-of-office/${period.body.id}`);
    expect(notTheirs.status).toBe(404);
    expect(notTheirs.body.code).toBe('not_found');
    expect((await carol.api.delete(`/api/me/out-of-office/${period.body.id}`)).status).toBe(200);
  });

  it('sends an absent person’s notifications to their delegate, who answers on their behalf', async () => {
    const period = await away(alice, bob.id);
    expect(period.status).toBe(201);
    const item = (
      await owner.api.post<ItemView>('/api/items', {
        title: 'Approve the refund',
        form: FORM,
        assignees: [{ type: 'user', id: alice.id }],
      })
    ).body;
    expect(await pushedTo(item.id)).toEqual([bob.id]);
    expect(await auditData(item.id, 'item.create')).toMatchObject({
      delegated: [{ user_id: alice.id, delegate_id: bob.id }],
    });
    const answered = await bob.api.post<ItemView>(`/api/items/${item.id}/answer`, { values: { ok: true } });
    expect(answered.status).toBe(200);
    expect(answered.body.answered_by).toEqual({ type: 'user', id: bob.id });
    expect(await auditData(item.id, 'item.answer')).toMatchObject({ on_behalf_of: [alice.id] });
    // The timeline names who was away, who was told instead and whom the answer was for.
    const timeline = (
      await owner.api.get<{ action: string | null; names: Record<string, string> }[]>(
        `/api/items/${item.id}/timeline`,
      )
    ).body;
    const named = Object.fromEntries(timeline.map((entry) => [entry.action, entry.names]));
    const nameOf = async (id: string) =>
      (
        await server.database.sql<
          { name: string }[]
        >`select coalesce(name, email) as name from users where id = ${id}`
      )[0]?.name;
    expect(named['item.create']).toEqual({
      [alice.id]: await nameOf(alice.id),
      [bob.id]: await nameOf(bob.id),
    });
    expect(named['item.answer']).toEqual({ [alice.id]: await nameOf(alice.id) });

    // Assigned later, the absent person's delegate is told, and the assignment says so.
    const later = (await owner.api.post<ItemView>('/api/items', { title: 'Check the invoice', form: FORM }))
      .body;
    const assigned = await owner.api.post(`/api/items/${later.id}/assign`, {
      assignees: [{ type: 'user', id: alice.id }],
    });
    expect(assigned.status).toBe(200);
    const toldOfAssignment = await server.database.sql<{ user_id: string }[]>`
      select user_id from push_queue where item_id = ${later.id} and payload->>'title' like 'Assigned to you:%'`;
    expect(toldOfAssignment.map((row) => row.user_id)).toEqual([bob.id]);
    expect(await auditData(later.id, 'item.assign')).toMatchObject({
      delegated: [{ user_id: alice.id, delegate_id: bob.id }],
    });

    // A schedule puts the delegate on call in the absent person's place.
    const schedule = (
      await owner.api.post<{ id: string }>('/api/schedules', {
        name: 'alice-always',
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
    const paged = (
      await owner.api.post<ItemView>('/api/items', {
        title: 'Page',
        assignees: [{ type: 'schedule', id: schedule }],
      })
    ).body;
    expect(paged.assignees).toEqual([
      { type: 'schedule', id: schedule },
      { type: 'user', id: bob.id },
    ]);
    expect(await auditData(paged.id, 'item.create')).toMatchObject({
      on_call: [{ schedule_id: schedule, user_id: bob.id, on_behalf_of: alice.id }],
    });
    await alice.api.delete(`/api/me/out-of-office/${period.body.id}`);
  });

  it('leaves out a person outside their working hours while someone else is reached', async () => {
    // A window two days from now: never now.
    const later = WEEKDAYS[(new Date().getUTCDay() + 2) % 7];
    const hours = { time_zone: 'UTC', windows: [{ days: [later], from: '09:00', to: '10:00' }] };
    expect((await carol.api.put('/api/me/availability', { working_hours: hours })).status).toBe(200);
    const both = (
      await owner.api.post<ItemView>('/api/items', {
        title: 'Check the backups',
        assignees: [
          { type: 'user', id: carol.id },
          { type: 'user', id: dave.id },
        ],
      })
    ).body;
    expect(await pushedTo(both.id)).toEqual([dave.id]);
    const only = (
      await owner.api.post<ItemView>('/api/items', {
        title: 'Only you',
        assignees: [{ type: 'user', id: carol.id }],
      })
    ).body;
    expect(await pushedTo(only.id)).toEqual([carol.id]);
  });
});
