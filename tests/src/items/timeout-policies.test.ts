import type { Form } from '@beckon/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, receiverPool, startTestServer, type TestServer } from '../harness';
import { watchOutcomes } from '../harness/outcome-watch';

/**
 * Timeout policies: at the deadline the expiry job (graphile-worker, scheduled at `deadline_at`)
 * expires the item, or answers or dismisses it as the policy. Deadlines here are a second away:
 * the job runs on the queue's own clock.
 */

type Actor = { type: string; id: string | null };
type Item = {
  id: string;
  status: string;
  response: Record<string, unknown> | null;
  answered_by: Actor | null;
  answered_at: string | null;
  on_timeout: { action: string; values?: Record<string, unknown> };
  responses: Array<{ by: Actor; values: Record<string, unknown>; at: string }>;
};

let server: TestServer;
let f: Factories;
const receivers = receiverPool();

const FORM: Form = {
  id: 'deploy',
  fields: [
    { id: 'ok', type: 'yesno', label: 'Deploy?', required: true },
    { id: 'note', type: 'text', label: 'Note', max_length: 5 },
  ],
};
const POLICY = { type: 'policy', id: null };
const soon = (ms = 1000) => new Date(Date.now() + ms).toISOString();

beforeAll(async () => {
  server = await startTestServer({ worker: true });
  f = new Factories(server.database.db);
});
afterAll(async () => {
  await receivers.closeAll();
  await server?.close();
});

async function account() {
  const owner = await f.account('owner');
  const key = await f.apiKey(owner.org.id, owner.user.id);
  return { ...owner, key, person: server.resource.as(owner.token) };
}

const until = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 200 && !(await check()); i++) await new Promise((r) => setTimeout(r, 50));
  expect(await check()).toBe(true);
};

const settled = (person: HttpClient, id: string) =>
  until(async () => (await person.get<Item>(`/api/items/${id}`)).body.status !== 'open');

describe('creating an item with on_timeout', () => {
  it('checks the policy against the form: 400 with the fields, like an answer', async () => {
    const { person } = await account();
    const bad = (body: Record<string, unknown>) =>
      person.post('/api/items', { title: 'q', form: FORM, deadline_at: soon(60_000), ...body });

    expect((await bad({ on_timeout: { action: 'answer', values: { ok: 'maybe', nope: 1 } } })).body).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { 'on_timeout.values.ok': expect.any(String), 'on_timeout.values.nope': 'unknown field' },
    });
    expect((await bad({ on_timeout: { action: 'answer', values: { note: 'x' } } })).body).toMatchObject({
      fields: { 'on_timeout.values.ok': 'required' },
    });
    expect(
      (await bad({ on_timeout: { action: 'answer', values: { ok: true, note: 'too long' } } })).status,
    ).toBe(400);
    const unknownAction = await bad({ on_timeout: { action: 'approve' } });
    expect(unknownAction.status).toBe(400);
    expect(Object.keys((unknownAction.body as { fields: object }).fields)).toEqual(['on_timeout.action']);
    expect((await person.post('/api/items', { title: 'q', on_timeout: { action: 'dismiss' } })).body).toEqual(
      { error: 'invalid request', code: 'invalid_request', fields: { on_timeout: 'needs deadline_at' } },
    );
    expect(
      (
        await person.post('/api/items', {
          title: 'q',
          deadline_at: soon(60_000),
          on_timeout: { action: 'answer', values: {} },
        })
      ).body,
    ).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { on_timeout: 'answering needs a form' },
    });

    const created = await bad({ on_timeout: { action: 'answer', values: { ok: false } } });
    expect(created.status).toBe(201);
    expect((created.body as Item).on_timeout).toEqual({ action: 'answer', values: { ok: false } });
    const plain = await person.post<Item>('/api/items', { title: 'plain' });
    expect(plain.body.on_timeout).toEqual({ action: 'expire' });
    expect(plain.body.responses).toEqual([]);
  });

  it('takes the policy from a template when the request leaves it out', async () => {
    const { person } = await account();
    const template = await person.post('/api/templates', {
      name: 'deploys',
      fields: { form: FORM, on_timeout: { action: 'answer', values: { ok: false } } },
    });
    expect(template.status).toBeLessThan(300);
    const item = await person.post<Item>('/api/items', {
      title: 'from template',
      template: 'deploys',
      deadline_at: soon(60_000),
    });
    expect(item.status).toBe(201);
    expect(item.body.on_timeout).toEqual({ action: 'answer', values: { ok: false } });
  });
});

describe('at the deadline', () => {
  it('answers with the declared values as the policy: callback, webhook, event stream and SDK say so', async () => {
    const { person, key } = await account();
    const { callback, webhook, stream, agent } = await watchOutcomes(
      server.resource.baseUrl,
      receivers,
      person,
      key.token,
    );
    const question = await agent.ask({
      title: 'Deploy tonight?',
      form: FORM,
      deadline_at: soon(),
      on_timeout: { action: 'answer', values: { ok: false, note: 'auto' } },
      callback_url: callback.url,
    });

    const outcome = await question.waitForAnswer({ timeoutMs: 20_000 });
    expect(outcome).toMatchObject({
      status: 'answered',
      byPolicy: true,
      response: { ok: false, note: 'auto' },
    });
    expect(outcome.item.answered_by).toEqual(POLICY);

    const [call] = await callback.waitFor(1);
    expect(JSON.parse(call!.body)).toMatchObject({
      item_id: question.item.id,
      event: 'item.answered',
      status: 'answered',
      response: { ok: false, note: 'auto' },
      answered_by: POLICY,
      answered_at: expect.any(String),
    });
    const [delivery] = await webhook.waitFor(1);
    expect(JSON.parse(delivery!.body)).toMatchObject({
      type: 'item.answered',
      data: { item: { id: question.item.id, answered_by: POLICY, status: 'answered' } },
    });
    await stream.until((events) => events.some((e) => e.event === 'item.answered'));
    const event = stream.events.find((e) => e.event === 'item.answered');
    expect(JSON.parse(event!.data)).toMatchObject({ item: { id: question.item.id, answered_by: POLICY } });
    stream.close();

    const item = (await person.get<Item>(`/api/items/${question.item.id}`)).body;
    expect(item.responses).toEqual([
      {
        by: POLICY,
        user_id: null,
        values: { ok: false, note: 'auto' },
        approves: null,
        at: expect.any(String),
      },
    ]);
    const timeline = (
      await person.get<Array<{ action?: string; actor_type: string }>>(`/api/items/${item.id}/timeline`)
    ).body;
    expect(timeline.find((e) => e.action === 'item.answer')).toMatchObject({ actor_type: 'policy' });
  });

  it('dismisses as the policy; restoring makes it open again with nobody having decided', async () => {
    const { person } = await account();
    const callback = await receivers.start();
    const item = (
      await person.post<Item>('/api/items', {
        title: 'Clean up?',
        deadline_at: soon(),
        on_timeout: { action: 'dismiss' },
        callback_url: callback.url,
      })
    ).body;
    const [call] = await callback.waitFor(1);
    expect(JSON.parse(call!.body)).toMatchObject({
      event: 'item.dismissed',
      status: 'dismissed',
      answered_by: POLICY,
    });
    expect((await person.get<Item>(`/api/items/${item.id}`)).body).toMatchObject({
      status: 'dismissed',
      answered_by: POLICY,
      response: null,
    });
    const restored = (await person.post<Item>(`/api/items/${item.id}/restore`)).body;
    expect(restored).toMatchObject({ status: 'open', answered_by: null, answered_at: null });
  });

  it('expires by default (the system, not the policy), and a person answering in time wins', async () => {
    const { person, user } = await account();
    const expiring = (await person.post<Item>('/api/items', { title: 'late', deadline_at: soon() })).body;
    const answered = (
      await person.post<Item>('/api/items', {
        title: 'in time',
        form: FORM,
        deadline_at: soon(),
        on_timeout: { action: 'answer', values: { ok: false } },
      })
    ).body;
    expect((await person.post(`/api/items/${answered.id}/answer`, { values: { ok: true } })).status).toBe(
      200,
    );
    await settled(person, expiring.id);
    expect((await person.get<Item>(`/api/items/${expiring.id}`)).body).toMatchObject({
      status: 'expired',
      answered_by: null,
    });
    // The answered item's job was removed when it left open: still the person's answer.
    const [jobs] = await server.database.sql<{ count: number }[]>`
      select count(*)::int as count from graphile_worker.jobs where key = ${`expire_item:${answered.id}`}`;
    expect(jobs!.count).toBe(0);
    expect((await person.get<Item>(`/api/items/${answered.id}`)).body).toMatchObject({
      status: 'answered',
      response: { ok: true },
      answered_by: { type: 'user', id: user.id },
    });
  });
});

describe('over MCP', () => {
  it('service.ask takes deadline_at and on_timeout; service.list shows the policy decided', async () => {
    const { key } = await account();
    const agent = server.resource.as(key.token);
    let id = 1;
    const call = async (name: string, args: Record<string, unknown>) => {
      const res = await agent.post<{ result: { content: Array<{ text: string }>; isError?: boolean } }>(
        '/mcp',
        { jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name, arguments: args } },
        { headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' } },
      );
      expect(res.body.result.isError).toBeFalsy();
      return JSON.parse(res.body.result.content[0]!.text) as unknown;
    };
    const asked = (await call('service.ask', {
      title: 'Ship it?',
      form: FORM,
      deadline_at: soon(),
      on_timeout: { action: 'answer', values: { ok: true } },
    })) as Item;
    expect(asked.on_timeout).toEqual({ action: 'answer', values: { ok: true } });
    await until(async () => {
      const list = (await call('service.list', { status: 'answered' })) as { items: Item[] };
      return list.items.some((i) => i.id === asked.id && i.answered_by?.type === 'policy');
    });
  });
});
