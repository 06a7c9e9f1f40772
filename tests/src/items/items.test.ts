// Longer than 300 lines: each case checks its exact error body (the sentence and its code).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';

type Item = Record<string, unknown> & { id: string; status: string };

let server: TestServer;
let f: Factories;
let owner: HttpClient;
let viewer: HttpClient;
let other: HttpClient;
let orgId: string;

const FORM = {
  id: 'deploy',
  fields: [
    { id: 'approve', type: 'yesno', label: 'Ship it?', required: true },
    { id: 'reason', type: 'textarea', label: 'Why', max_length: 20 },
    {
      id: 'env',
      type: 'select',
      label: 'Where',
      options: [
        { value: 'prod', label: 'Production' },
        { value: 'staging', label: 'Staging' },
      ],
    },
  ],
};

beforeAll(async () => {
  server = await startTestServer();
  f = new Factories(server.database.db);
  const account = await f.account('owner');
  orgId = account.org.id;
  owner = server.resource.as(account.token);
  const viewerUser = await f.user();
  await f.member(orgId, viewerUser.id, 'viewer');
  viewer = server.resource.as((await f.session(viewerUser.id, orgId)).token);
  other = server.resource.as((await f.account('owner')).token);
});
afterAll(() => server?.close());

const create = async (body: Record<string, unknown> = {}) => {
  const res = await owner.post<Item>('/api/items', { title: 'Deploy?', ...body });
  expect(res.status).toBe(201);
  return res.body;
};

describe('create and get', () => {
  it('creates with the documented defaults', async () => {
    const res = await owner.post<Item>('/api/items', { title: 'Hello' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      org_id: orgId,
      title: 'Hello',
      message: null,
      level: 'info',
      priority: 2,
      tags: [],
      metadata: {},
      form: null,
      status: 'open',
      pinned: false,
      response: null,
      channel: null,
      created_by: { type: 'user' },
      agent_id: null,
    });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const got = await owner.get<Item>(`/api/items/${res.body.id}`);
    expect(got.body).toEqual(res.body);
  });

  it('keeps every field it is given', async () => {
    const item = await create({
      message: 'Canary is green',
      level: 'warning',
      priority: 4,
      tags: ['deploy', 'prod'],
      form: FORM,
      metadata: { run: 42 },
      callback_url: 'https://example.com/hook',
    });
    expect(item).toMatchObject({
      level: 'warning',
      priority: 4,
      tags: ['deploy', 'prod'],
      form: FORM,
      metadata: { run: 42 },
    });
  });

  it('answers 400 naming each bad field', async () => {
    const res = await owner.post('/api/items', {
      priority: 7,
      level: 'loud',
      titel: 'typo',
      callback_url: 'ftp://example.com',
      form: { id: 'f', fields: [{ id: 'x', type: 'select', label: 'X' }] },
    });
    expect(res.status).toBe(400);
    const body = res.body as { error: string; fields: Record<string, string> };
    expect(body.error).toBe('invalid request');
    expect(Object.keys(body.fields).sort()).toEqual(
      ['callback_url', 'form.fields.0.options', 'level', 'priority', 'title', 'titel'].sort(),
    );
    expect(body.fields.titel).toBe('unknown field');
  });

  it('hides other organizations: unknown and foreign ids are 404', async () => {
    const item = await create();
    for (const client of [other]) {
      expect((await client.get(`/api/items/${item.id}`)).body).toEqual({
        error: 'not found',
        code: 'not_found',
      });
      expect((await client.post(`/api/items/${item.id}/dismiss`)).status).toBe(404);
      expect((await client.patch(`/api/items/${item.id}`, { title: 'mine now' })).status).toBe(404);
    }
    expect((await owner.get(`/api/items/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await owner.get<Item>(`/api/items/${item.id}`)).body).toMatchObject({
      title: 'Deploy?',
      status: 'open',
    });
  });

  it('lets a viewer read but not write', async () => {
    const item = await create();
    expect((await viewer.get(`/api/items/${item.id}`)).status).toBe(200);
    const denied = await viewer.post('/api/items', { title: 'x' });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'items.write',
    });
    expect((await viewer.post(`/api/items/${item.id}/archive`)).body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'items.archive',
    });
  });
});

describe('status machine', () => {
  it('validates an answer against the form (422, item unchanged) and records a valid one', async () => {
    const item = await create({ form: FORM });
    const bad = await owner.post(`/api/items/${item.id}/answer`, {
      values: { reason: 'x'.repeat(30), env: 'moon', extra: 1 },
    });
    expect(bad.status).toBe(422);
    const fields = (bad.body as { error: string; fields: Record<string, string> }).fields;
    expect((bad.body as { error: string }).error).toBe('validation failed');
    expect(Object.keys(fields).sort()).toEqual(['approve', 'env', 'extra', 'reason']);
    expect((await owner.get<Item>(`/api/items/${item.id}`)).body).toMatchObject({
      status: 'open',
      response: null,
    });
    // No values, or values that are not an object: a wrong type (400), not a form failure.
    for (const body of [{}, { values: ['yes'] }, { values: 'yes' }]) {
      const wrong = await owner.post(`/api/items/${item.id}/answer`, body);
      expect(wrong.status, JSON.stringify(body)).toBe(400);
      expect(wrong.body).toEqual({
        error: 'invalid request',
        code: 'invalid_request',
        fields: { values: expect.any(String) },
      });
    }

    const ok = await owner.post<Item>(`/api/items/${item.id}/answer`, {
      values: { approve: false, env: 'prod' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'answered', response: { approve: false, env: 'prod' } });
    expect(ok.body.answered_by).toMatchObject({ type: 'user' });
    expect(ok.body.answered_at).not.toBeNull();

    const again = await owner.post(`/api/items/${item.id}/answer`, { values: { approve: true } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      error: 'cannot answer an item that is answered',
      code: 'invalid_status',
      status: 'answered',
    });
  });

  it('refuses to answer an item without a form', async () => {
    const item = await create();
    const res = await owner.post(`/api/items/${item.id}/answer`, { values: {} });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ status: 'open' });
  });

  it('dismisses, restores to answered, archives and unarchives to the remembered status', async () => {
    const item = await create({ form: FORM });
    await owner.post(`/api/items/${item.id}/answer`, { values: { approve: true } });
    expect((await owner.post<Item>(`/api/items/${item.id}/dismiss`)).body.status).toBe('dismissed');
    expect((await owner.post<Item>(`/api/items/${item.id}/restore`)).body.status).toBe('answered');
    const archived = await owner.post<Item>(`/api/items/${item.id}/archive`);
    expect(archived.body).toMatchObject({ status: 'archived' });
    expect(archived.body.archived_at).not.toBeNull();
    expect((await owner.post(`/api/items/${item.id}/archive`)).body).toEqual({
      error: 'cannot archive an item that is archived',
      code: 'invalid_status',
      status: 'archived',
    });
    expect((await owner.post(`/api/items/${item.id}/ack`)).status).toBe(409);
    const back = await owner.post<Item>(`/api/items/${item.id}/unarchive`);
    expect(back.body).toMatchObject({ status: 'answered', archived_at: null });
  });

  it('withdraws an open question, restores it to open, and refuses what the machine forbids', async () => {
    const item = await create();
    expect((await owner.post<Item>(`/api/items/${item.id}/withdraw`)).body.status).toBe('withdrawn');
    expect((await owner.post(`/api/items/${item.id}/dismiss`)).body).toEqual({
      error: 'cannot dismiss an item that is withdrawn',
      code: 'invalid_status',
      status: 'withdrawn',
    });
    expect((await owner.post<Item>(`/api/items/${item.id}/restore`)).body.status).toBe('open');
    expect((await owner.post(`/api/items/${item.id}/restore`)).status).toBe(409);
    expect((await owner.post(`/api/items/${item.id}/unarchive`)).status).toBe(409);
  });

  it('acks once, pins idempotently, and keeps the status', async () => {
    const item = await create();
    const first = await owner.post<Item>(`/api/items/${item.id}/ack`);
    const second = await owner.post<Item>(`/api/items/${item.id}/ack`);
    expect(first.body.acked_at).not.toBeNull();
    expect(second.body.acked_at).toBe(first.body.acked_at);
    expect(second.body.status).toBe('open');
    expect((await owner.post<Item>(`/api/items/${item.id}/pin`)).body.pinned).toBe(true);
    expect((await owner.post<Item>(`/api/items/${item.id}/pin`)).status).toBe(200);
    expect((await owner.post<Item>(`/api/items/${item.id}/unpin`)).body.pinned).toBe(false);
  });

  it('takes an action with an empty JSON body as one without a body', async () => {
    const item = await create();
    const acked = await owner.post<Item>(`/api/items/${item.id}/ack`, '', { raw: true });
    expect(acked.status).toBe(200);
    expect(acked.body.acked_at).not.toBeNull();
    // The JSON parser's protections stay: a prototype-poisoning body is refused.
    const poisoned = await owner.post(`/api/items/${item.id}/pin`, '{"__proto__":{"x":1}}', { raw: true });
    expect(poisoned.status).toBe(400);
  });

  it('writes an audit entry for every change, none for one that changes nothing', async () => {
    const item = await create({ form: FORM });
    await owner.post(`/api/items/${item.id}/ack`);
    await owner.post(`/api/items/${item.id}/ack`); // already acked: no entry
    await owner.post(`/api/items/${item.id}/pin`);
    await owner.post(`/api/items/${item.id}/pin`); // already pinned: no entry
    await owner.post(`/api/items/${item.id}/answer`, { values: { approve: true } });
    await owner.post(`/api/items/${item.id}/answer`, { values: { approve: true } }); // refused: no entry
    const rows = await server.database.sql<{ action: string }[]>`
      select action from audit_entries where item_id = ${item.id} order by id`;
    expect(rows.map((r) => r.action)).toEqual(['item.create', 'item.ack', 'item.pin', 'item.answer']);
  });
});

describe('snooze', () => {
  it('hides a snoozed item from lists until asked for, and refuses a time in the past', async () => {
    const item = await create({ title: 'snooze me' });
    const past = await owner.post(`/api/items/${item.id}/snooze`, { until: '2020-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(past.body).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { until: 'must be in the future' },
    });
    const until = new Date(Date.now() + 3600_000).toISOString();
    const snoozed = await owner.post<Item>(`/api/items/${item.id}/snooze`, { until });
    expect(snoozed.body.snoozed_until).toBe(until);
    const ids = async (query: string) =>
      (await owner.get<{ items: Item[] }>(`/api/items?limit=200${query}`)).body.items.map((i) => i.id);
    expect(await ids('')).not.toContain(item.id);
    expect(await ids('&include_snoozed=true')).toContain(item.id);
    await owner.post(`/api/items/${item.id}/unsnooze`);
    expect(await ids('')).toContain(item.id);
  });
});

describe('update', () => {
  it('patches the given fields and refuses an empty patch', async () => {
    const item = await create({ tags: ['a'] });
    const res = await owner.patch<Item>(`/api/items/${item.id}`, {
      title: 'Renamed',
      tags: ['b', 'c'],
      priority: 0,
    });
    expect(res.body).toMatchObject({ title: 'Renamed', tags: ['b', 'c'], priority: 0 });
    expect((await owner.patch(`/api/items/${item.id}`, {})).status).toBe(400);
    expect((await owner.patch(`/api/items/${item.id}`, { status: 'answered' })).body).toMatchObject({
      fields: { status: 'unknown field' },
    });
  });
});

describe('comments and timeline', () => {
  it('lists comments oldest first and merges them with events in the timeline', async () => {
    const item = await create();
    const c1 = await owner.post(`/api/items/${item.id}/comments`, { body: 'first' });
    expect(c1.status).toBe(201);
    expect(c1.body).toMatchObject({ item_id: item.id, body: 'first', actor_type: 'user' });
    await owner.post(`/api/items/${item.id}/ack`);
    await owner.post(`/api/items/${item.id}/comments`, { body: 'second' });
    const comments = await owner.get<Array<{ body: string }>>(`/api/items/${item.id}/comments`);
    expect(comments.body.map((c) => c.body)).toEqual(['first', 'second']);
    const timeline = await owner.get<Array<Record<string, unknown>>>(`/api/items/${item.id}/timeline`);
    expect(timeline.body.map((e) => [e.entry_type, e.action ?? e.body])).toEqual([
      ['event', 'item.create'],
      ['comment', 'first'],
      ['event', 'item.ack'],
      ['comment', 'second'],
    ]);
    expect((await owner.post(`/api/items/${item.id}/comments`, { body: '' })).status).toBe(400);
    expect((await other.get(`/api/items/${item.id}/timeline`)).status).toBe(404);
    expect((await other.post(`/api/items/${item.id}/comments`, { body: 'hi' })).status).toBe(404);
  });
});
