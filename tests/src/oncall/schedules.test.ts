// Longer than 300 lines: every schedule operation with its refusals, on one organization's people.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';

type Schedule = Record<string, unknown> & { id: string; name: string; layers: Record<string, unknown>[] };
type Override = { id: string; schedule_id: string; user_id: string; starts_at: string; ends_at: string };
type OnCall = {
  user_id: string | null;
  source: string | null;
  layer: number | null;
  override_id: string | null;
};
type AuditPage = { entries: { action: string; data: Record<string, unknown> }[] };

let server: TestServer;
let owner: HttpClient;
let member: HttpClient;
let viewer: HttpClient;
let other: HttpClient;
let orgId: string;
let alice: string;
let bob: string;
let carol: string;
let outsider: string;
let teamId: string;

beforeAll(async () => {
  server = await startTestServer();
  const f = new Factories(server.database.db);
  const account = await f.account('owner');
  orgId = account.org.id;
  owner = server.resource.as(account.token);
  const [a, b, c] = [await f.user(), await f.user(), await f.user()];
  [alice, bob, carol] = [a.id, b.id, c.id];
  await f.member(orgId, alice, 'member');
  await f.member(orgId, bob, 'viewer');
  await f.member(orgId, carol, 'member');
  member = server.resource.as((await f.session(alice, orgId)).token);
  viewer = server.resource.as((await f.session(bob, orgId)).token);
  const otherAccount = await f.account('owner');
  other = server.resource.as(otherAccount.token);
  outsider = otherAccount.user.id;
  const sql = server.database.sql;
  const [team] = await sql<{ id: string }[]>`
    insert into teams (org_id, name, slug) values (${orgId}, 'SRE', 'sre') returning id`;
  teamId = team?.id ?? '';
  await sql`insert into team_members (org_id, team_id, user_id, created_at) values
    (${orgId}, ${teamId}, ${carol}, '2026-01-01'), (${orgId}, ${teamId}, ${alice}, '2026-01-02')`;
});
afterAll(() => server?.close());

const primary = () => ({
  name: 'primary',
  description: 'Platform on-call',
  time_zone: 'Europe/Paris',
  layers: [
    {
      name: 'office hours',
      members: [{ type: 'team', id: teamId }],
      start: '2026-03-02T09:00',
      turn: { unit: 'week', count: 1 },
      restrictions: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '09:00', to: '18:00' }],
    },
    {
      name: 'nights and weekends',
      members: [
        { type: 'user', id: alice },
        { type: 'user', id: bob },
      ],
      start: '2026-03-01T20:00',
      turn: { unit: 'day', count: 1 },
    },
  ],
});

const onCall = async (id: string, at: string, client = viewer) => {
  const res = await client.get<OnCall>(`/api/schedules/${id}/on-call?at=${encodeURIComponent(at)}`);
  expect(res.status).toBe(200);
  return res.body;
};

describe('schedules', () => {
  let schedule: Schedule;

  it('creates a schedule (201), with defaults filled in, and reads it back', async () => {
    const res = await owner.post<Schedule>('/api/schedules', primary());
    expect(res.status).toBe(201);
    schedule = res.body;
    expect(schedule).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      ...primary(),
      layers: [primary().layers[0], { ...primary().layers[1], restrictions: [] }],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await viewer.get(`/api/schedules/${schedule.id}`)).body).toEqual(schedule);
    expect((await viewer.get<Schedule[]>('/api/schedules')).body).toEqual([schedule]);
    const dup = await owner.post('/api/schedules', primary());
    expect(dup.status).toBe(409);
  });

  it('answers who is on call: office hours by the team, in turn, else the night layer', async () => {
    // Monday 2 March 2026, 10:00 in Paris (09:00Z): first week, the team's first member.
    expect(await onCall(schedule.id, '2026-03-02T09:00:00Z')).toEqual({
      schedule_id: schedule.id,
      at: '2026-03-02T09:00:00.000Z',
      user_id: carol,
      source: 'layer',
      layer: 0,
      override_id: null,
    });
    // The next Monday the second member; after 18:00 the night layer (turn of 8 March: 7 days in, alice).
    expect((await onCall(schedule.id, '2026-03-09T08:00:00Z')).user_id).toBe(alice);
    expect(await onCall(schedule.id, '2026-03-09T17:00:00Z')).toMatchObject({ user_id: bob, layer: 1 });
    // Before the first hand-off of either layer, nobody.
    expect(await onCall(schedule.id, '2026-02-01T12:00:00Z')).toMatchObject({ user_id: null, source: null });
    // After the spring change (29 March) office hours start at 07:00Z.
    expect((await onCall(schedule.id, '2026-03-30T07:00:00Z')).layer).toBe(0);
    expect((await onCall(schedule.id, '2026-03-27T07:30:00Z')).layer).toBe(1);
  });

  it('lets an override win over the layers for its period, and records it', async () => {
    const res = await owner.post<Override>(`/api/schedules/${schedule.id}/overrides`, {
      user_id: bob,
      starts_at: '2026-03-02T08:00:00Z',
      ends_at: '2026-03-02T12:00:00+02:00',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      schedule_id: schedule.id,
      user_id: bob,
      starts_at: '2026-03-02T08:00:00.000Z',
      ends_at: '2026-03-02T10:00:00.000Z',
      created_at: expect.any(String),
    });
    expect(await onCall(schedule.id, '2026-03-02T09:00:00Z')).toMatchObject({
      user_id: bob,
      source: 'override',
      layer: null,
      override_id: res.body.id,
    });
    expect((await onCall(schedule.id, '2026-03-02T10:00:00Z')).user_id).toBe(carol);
    const list = await viewer.get<Override[]>(`/api/schedules/${schedule.id}/overrides`);
    expect(list.body).toEqual([res.body]);
    const audit = await owner.get<AuditPage>('/api/audit');
    expect(audit.body.entries[0]).toMatchObject({
      action: 'schedule.override.create',
      data: { schedule_id: schedule.id, override_id: res.body.id, user_id: bob },
    });
    const deleted = await owner.delete(`/api/schedules/${schedule.id}/overrides/${res.body.id}`);
    expect(deleted.status).toBe(200);
    expect((await onCall(schedule.id, '2026-03-02T09:00:00Z')).user_id).toBe(carol);
    expect((await owner.delete(`/api/schedules/${schedule.id}/overrides/${res.body.id}`)).status).toBe(404);
  });

  it('lists the shifts of a span, overrides and restrictions included', async () => {
    const res = await viewer.get<{ user_id: string; starts_at: string; ends_at: string }[]>(
      `/api/schedules/${schedule.id}/shifts?from=2026-03-02T00:00:00Z&days=1`,
    );
    expect(res.status).toBe(200);
    expect(res.body.map((s) => [s.user_id, s.starts_at, s.ends_at])).toEqual([
      [alice, '2026-03-02T00:00:00.000Z', '2026-03-02T08:00:00.000Z'],
      [carol, '2026-03-02T08:00:00.000Z', '2026-03-02T17:00:00.000Z'],
      [alice, '2026-03-02T17:00:00.000Z', '2026-03-02T19:00:00.000Z'],
      [bob, '2026-03-02T19:00:00.000Z', '2026-03-03T00:00:00.000Z'],
    ]);
    expect((await viewer.get(`/api/schedules/${schedule.id}/shifts?days=91`)).status).toBe(400);
  });

  it('defaults the instant to now', async () => {
    const res = await viewer.get<OnCall & { at: string }>(`/api/schedules/${schedule.id}/on-call`);
    expect(Math.abs(Date.parse(res.body.at) - Date.now())).toBeLessThan(60_000);
  });

  it('replaces a schedule, and audits each change', async () => {
    const replaced = await owner.put<Schedule>(`/api/schedules/${schedule.id}`, {
      ...primary(),
      name: 'primary-renamed',
      time_zone: 'America/New_York',
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      id: schedule.id,
      name: 'primary-renamed',
      time_zone: 'America/New_York',
    });
    const actions = (await owner.get<AuditPage>('/api/audit')).body.entries.map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(['schedule.create', 'schedule.update', 'schedule.override.delete']),
    );
  });

  it('refuses invalid schedules, naming the fields', async () => {
    const bad = await owner.post<{ fields: Record<string, string> }>('/api/schedules', {
      ...primary(),
      name: 'bad',
      time_zone: 'Mars/Olympus_Mons',
    });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.fields)).toEqual(['time_zone']);
    const layer = primary().layers[0];
    for (const [path, change] of [
      ['layers.0.start', { start: '2026-02-30T09:00' }],
      ['layers.0.turn.count', { turn: { unit: 'day', count: 400 } }],
      ['layers.0.restrictions.0.to', { restrictions: [{ days: ['mon'], from: '09:00', to: '09:00' }] }],
      ['layers.0.members', { members: [] }],
    ] as const) {
      const res = await owner.post<{ fields: Record<string, string> }>('/api/schedules', {
        ...primary(),
        name: 'bad',
        layers: [{ ...layer, ...change }],
      });
      expect(res.status, path).toBe(400);
      expect(Object.keys(res.body.fields), path).toContain(path);
    }
    const strangers = await owner.post<{ fields: Record<string, string> }>('/api/schedules', {
      ...primary(),
      name: 'bad',
      layers: [
        {
          ...layer,
          members: [
            { type: 'user', id: outsider },
            { type: 'team', id: outsider },
          ],
        },
      ],
    });
    expect(strangers.status).toBe(400);
    expect(strangers.body.fields).toEqual({
      'layers.0.members.0': 'unknown user',
      'layers.0.members.1': 'unknown team',
    });
    const backwards = await owner.post<{ fields: Record<string, string> }>(
      `/api/schedules/${schedule.id}/overrides`,
      { user_id: alice, starts_at: '2026-03-02T08:00:00Z', ends_at: '2026-03-02T08:00:00Z' },
    );
    expect(backwards.status).toBe(400);
    expect(Object.keys(backwards.body.fields)).toEqual(['ends_at']);
    const stranger = await owner.post<{ fields: Record<string, string> }>(
      `/api/schedules/${schedule.id}/overrides`,
      { user_id: outsider, starts_at: '2026-03-02T08:00:00Z', ends_at: '2026-03-02T09:00:00Z' },
    );
    expect(stranger.body).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { user_id: 'unknown user' },
    });
    expect((await viewer.get(`/api/schedules/${schedule.id}/on-call?at=tomorrow`)).status).toBe(400);
  });

  it('needs channels.manage to write; members and viewers read', async () => {
    for (const client of [member, viewer]) {
      const denied = await client.post('/api/schedules', { ...primary(), name: 'denied' });
      expect(denied.body).toEqual({
        error: 'permission denied',
        code: 'permission_denied',
        required: 'channels.manage',
      });
      const override = await client.post(`/api/schedules/${schedule.id}/overrides`, {
        user_id: alice,
        starts_at: '2026-03-02T08:00:00Z',
        ends_at: '2026-03-02T09:00:00Z',
      });
      expect(override.status).toBe(403);
      expect((await client.delete(`/api/schedules/${schedule.id}`)).status).toBe(403);
      expect((await client.get(`/api/schedules/${schedule.id}/overrides`)).status).toBe(200);
    }
  });

  it('keeps organizations apart: another one gets 404 on every route', async () => {
    const id = schedule.id;
    expect((await other.get<Schedule[]>('/api/schedules')).body).toEqual([]);
    expect((await other.get(`/api/schedules/${id}`)).status).toBe(404);
    expect((await other.get(`/api/schedules/${id}/on-call`)).status).toBe(404);
    expect((await other.get(`/api/schedules/${id}/overrides`)).status).toBe(404);
    expect((await other.put(`/api/schedules/${id}`, { ...primary(), layers: [] })).status).toBe(400);
    const theirs = {
      ...primary(),
      layers: [{ ...primary().layers[1], members: [{ type: 'user', id: outsider }] }],
    };
    expect((await other.put(`/api/schedules/${id}`, theirs)).status).toBe(404);
    const override = {
      user_id: outsider,
      starts_at: '2026-03-02T08:00:00Z',
      ends_at: '2026-03-02T09:00:00Z',
    };
    expect((await other.post(`/api/schedules/${id}/overrides`, override)).status).toBe(404);
    expect((await other.delete(`/api/schedules/${id}`)).status).toBe(404);
    expect((await owner.get(`/api/schedules/${id}`)).status).toBe(200);
  });

  it('deletes a schedule with its overrides, answering it', async () => {
    await owner.post(`/api/schedules/${schedule.id}/overrides`, {
      user_id: alice,
      starts_at: '2026-03-02T08:00:00Z',
      ends_at: '2026-03-02T09:00:00Z',
    });
    const res = await owner.delete<Schedule>(`/api/schedules/${schedule.id}`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(schedule.id);
    expect((await owner.get(`/api/schedules/${schedule.id}`)).status).toBe(404);
    const [left] = await server.database
      .sql`select count(*)::int as n from schedule_overrides where org_id = ${orgId}`;
    expect(left?.n).toBe(0);
  });
});
