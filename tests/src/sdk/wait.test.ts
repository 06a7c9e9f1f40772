import { randomUUID } from 'node:crypto';
import { createClient, NotFoundError } from '@beckon/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';
import { until, yesNoForm } from './helpers';

let server: TestServer;
let f: Factories;

beforeAll(async () => {
  server = await startTestServer({ worker: true });
  f = new Factories(server.database.db);
});
afterAll(() => server?.close());

type Fetch = typeof fetch;

/** An agent's client (optionally with a fetch in the middle) and a person of its organization. */
async function setup(wrapFetch?: (base: Fetch) => Fetch) {
  const account = await f.account('owner');
  const key = await f.apiKey(account.org.id, account.user.id);
  const agent = createClient({
    baseUrl: server.resource.baseUrl,
    token: key.token,
    ...(wrapFetch ? { fetch: wrapFetch(fetch) } : {}),
  });
  return { agent, person: server.resource.as(account.token) };
}

const later = (ms: number, action: () => Promise<unknown>) => setTimeout(() => void action(), ms);
const answer = (person: HttpClient, id: string, ok = true) =>
  person.post(`/api/items/${id}/answer`, { values: { ok } });

describe('waitForAnswer', () => {
  it('resolves with the response when a person answers (over the event stream)', async () => {
    const { agent, person } = await setup();
    const question = await agent.ask({ title: 'Deploy?', form: yesNoForm });
    later(300, () => answer(person, question.item.id));
    const outcome = await question.waitForAnswer({ timeoutMs: 10_000, pollIntervalMs: 60_000 });
    expect(outcome.status).toBe('answered');
    expect(outcome.response).toEqual({ ok: true });
    expect(outcome.item).toMatchObject({ id: question.item.id, status: 'answered' });
  });

  it('resolves dismissed, and expired when the deadline passes', async () => {
    const { agent, person } = await setup();
    const dismissed = await agent.ask({ title: 'Dismiss me', form: yesNoForm });
    later(200, () => person.post(`/api/items/${dismissed.item.id}/dismiss`));
    expect(await dismissed.waitForAnswer({ timeoutMs: 10_000 })).toMatchObject({
      status: 'dismissed',
      response: null,
    });

    const deadline_at = new Date(Date.now() + 800).toISOString();
    const expiring = await agent.ask({ title: 'Too late', form: yesNoForm, deadline_at });
    expect((await expiring.waitForAnswer({ timeoutMs: 10_000 })).status).toBe('expired');
  });

  it('resolves `timeout` with the item as last seen when nobody answers in time', async () => {
    const { agent } = await setup();
    const question = await agent.ask({ title: 'Anyone?', form: yesNoForm });
    const started = Date.now();
    const outcome = await question.waitForAnswer({ timeoutMs: 400 });
    expect(outcome).toMatchObject({ status: 'timeout', response: null, item: { status: 'open' } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
  });

  it('sees an answer given before the stream opened (it reads the item once connected)', async () => {
    const { agent, person } = await setup();
    const question = await agent.ask({ title: 'Early bird', form: yesNoForm });
    await answer(person, question.item.id, false);
    const outcome = await question.waitForAnswer({ timeoutMs: 5_000, pollIntervalMs: 60_000 });
    expect(outcome).toMatchObject({ status: 'answered', response: { ok: false } });
  });

  it('falls back to polling when the event stream is unavailable', async () => {
    let streamAttempts = 0;
    let reads = 0;
    const { agent, person } = await setup((base) => async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.includes('/mcp/sse')) {
        streamAttempts++;
        return new Response('{"error":"event stream unavailable"}', {
          status: 503,
          headers: { 'content-type': 'application/json' },
        });
      }
      if (url.includes('/items.get')) reads++;
      return base(input, init);
    });
    const question = await agent.ask({ title: 'Poll me', form: yesNoForm });
    later(400, () => answer(person, question.item.id));
    const outcome = await question.waitForAnswer({ timeoutMs: 10_000, pollIntervalMs: 150 });
    expect(outcome.status).toBe('answered');
    expect(streamAttempts).toBeGreaterThanOrEqual(1);
    expect(reads).toBeGreaterThanOrEqual(2);
  });

  it("shares one event stream among all of a client's waits, and closes it after the last", async () => {
    let streams = 0;
    let open = 0;
    const { agent, person } = await setup((base) => async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (!url.includes('/mcp/sse')) return base(input, init);
      streams++;
      open++;
      init?.signal?.addEventListener('abort', () => open--, { once: true });
      return base(input, init);
    });
    const questions = await Promise.all(
      Array.from({ length: 12 }, (_, i) => agent.ask({ title: `Question ${i}`, form: yesNoForm })),
    );
    const waits = questions.map((q) => q.waitForAnswer({ timeoutMs: 20_000, pollIntervalMs: 60_000 }));
    await until(() => streams === 1);
    await answer(person, questions[0]!.item.id, false);
    expect((await waits[0])?.response).toEqual({ ok: false });
    // A wait that starts while the stream is open joins it.
    const late = await agent.ask({ title: 'Late question', form: yesNoForm });
    const lateWait = late.waitForAnswer({ timeoutMs: 20_000, pollIntervalMs: 60_000 });
    await answer(person, late.item.id, false);
    expect((await lateWait).response).toEqual({ ok: false });
    for (const q of questions.slice(1)) await answer(person, q.item.id);
    const outcomes = await Promise.all(waits);
    expect(outcomes.map((o) => o.status)).toEqual(Array(12).fill('answered'));
    expect(streams).toBe(1);
    await until(() => open === 0);
  });

  it('reconnects after a dropped stream with Last-Event-ID', async () => {
    const streamRequests: Array<string | null> = [];
    let firstEventId: string | null = null;
    const { agent, person } = await setup((base) => async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      const response = await base(input, init);
      if (!url.includes('/mcp/sse')) return response;
      streamRequests.push(new Headers(init?.headers).get('last-event-id'));
      if (streamRequests.length > 1 || !response.body) return response;
      // The first connection drops right after its first event.
      const reader = response.body.getReader();
      let text = '';
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          controller.enqueue(value);
          text += new TextDecoder().decode(value);
          const id = /^id: (.+)$/m.exec(text)?.[1];
          if (id && text.includes('\n\n', text.indexOf('id: '))) {
            firstEventId = id;
            controller.close();
            await reader.cancel();
          }
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    });
    const question = await agent.ask({ title: 'Flaky network', form: yesNoForm });
    const waiting = question.waitForAnswer({ timeoutMs: 15_000, pollIntervalMs: 60_000 });
    await until(() => streamRequests.length === 1);
    await person.post(`/api/items/${question.item.id}/pin`);
    await until(() => streamRequests.length === 2);
    expect(streamRequests[1]).toBe(firstEventId);
    await answer(person, question.item.id);
    expect((await waiting).status).toBe('answered');
  });

  it('rejects when aborted, and with NotFoundError for an unknown item', async () => {
    const { agent } = await setup();
    const question = await agent.ask({ title: 'Abort me', form: yesNoForm });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stopped by the caller')), 100);
    await expect(question.waitForAnswer({ signal: controller.signal })).rejects.toThrow(
      'stopped by the caller',
    );
    await expect(agent.waitForAnswer(randomUUID())).rejects.toBeInstanceOf(NotFoundError);
  });
});
