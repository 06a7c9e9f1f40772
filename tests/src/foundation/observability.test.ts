import { buildResourceApp } from '@beckon/server/http/resource';
import { PRIVATE_DESTINATION_HINT } from '@beckon/server/jobs/deliver';
import { startWorker, type WorkerHandle } from '@beckon/server/jobs/worker';
import { logMixin } from '@beckon/server/log';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startReceiver, startTestServer, type TestServer } from '../harness';

/** The resource app and a worker on the test database, logging into `lines`. */
let server: TestServer;
let app: FastifyInstance;
let worker: WorkerHandle;
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  server = await startTestServer();
  const log = pino(
    { level: 'info', mixin: logMixin },
    { write: (line: string) => lines.push(JSON.parse(line)) },
  );
  app = await buildResourceApp({ ...server.deps, log });
  worker = await startWorker({ ...server.deps, log }, server.database.url);
});
afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await server?.close();
});

const until = async (check: () => boolean | Promise<boolean>, what: string) => {
  for (const deadline = Date.now() + 20_000; !(await check()); ) {
    if (Date.now() > deadline) throw new Error(`not in time: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

const metric = async (pattern: RegExp) => {
  const text = (await app.inject({ url: '/metrics' })).body;
  return Number(pattern.exec(text)?.[1] ?? Number.NaN);
};

describe('operators can follow a request and a delivery', () => {
  it('a failed callback: warn line with item, host and reason, under the id of the request that caused it', async () => {
    const f = new Factories(server.database.db);
    const account = await f.account('owner');
    const receiver = await startReceiver(() => 500);
    try {
      const headers = { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' };
      const created = await app.inject({
        method: 'POST',
        url: '/api/items',
        headers,
        payload: { title: 'Call me back', callback_url: `${receiver.url}/hook` },
      });
      expect(created.statusCode).toBe(201);
      const item = created.json<{ id: string }>();
      const dismissed = await app.inject({
        method: 'POST',
        url: `/api/items/${item.id}/dismiss`,
        headers: { ...headers, 'x-request-id': 'dismiss-7' },
      });
      expect(dismissed.headers['x-request-id']).toBe('dismiss-7');
      await until(() => receiver.received.length >= 1, 'the callback');
      // The outbound request carries the id of the request it follows.
      expect(receiver.received[0]?.headers['x-request-id']).toBe('dismiss-7');

      const failure = () => lines.find((line) => line.msg === 'delivery failed; retrying');
      await until(() => failure() !== undefined, 'the warn line');
      expect(failure()).toMatchObject({
        level: 40,
        request_id: 'dismiss-7',
        kind: 'callback',
        item_id: item.id,
        target_host: new URL(receiver.url).host,
        status: 500,
        reason: 'answered 500',
        retry: true,
      });
      expect(
        await metric(/^beckon_delivery_attempts_total\{kind="callback",outcome="retrying"\} (\d+)/m),
      ).toBeGreaterThan(0);
    } finally {
      await receiver.close();
    }
  });

  it('a callback refused for its private address: the warn line names the setting that allows it', async () => {
    const strict = await startTestServer({ env: { ALLOW_PRIVATE_DESTINATIONS: 'false' } });
    const strictLines: Record<string, unknown>[] = [];
    const strictLog = pino(
      { level: 'info' },
      { write: (line: string) => strictLines.push(JSON.parse(line)) },
    );
    const strictWorker = await startWorker({ ...strict.deps, log: strictLog }, strict.database.url);
    const receiver = await startReceiver(() => 200);
    try {
      const account = await new Factories(strict.database.db).account('owner');
      const client = strict.resource.as(account.token);
      const item = (
        await client.post<{ id: string }>('/api/items', { title: 'Local', callback_url: receiver.url })
      ).body;
      await client.post(`/api/items/${item.id}/dismiss`);
      const failure = () => strictLines.find((line) => line.msg === 'delivery failed; giving up');
      await until(() => failure() !== undefined, 'the warn line');
      expect(failure()).toMatchObject({
        item_id: item.id,
        reason: 'destination not allowed: private or reserved address',
        retry: false,
        hint: PRIVATE_DESTINATION_HINT,
      });
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.close();
      await strictWorker.stop();
      await strict.close();
    }
  });

  it('domain metrics: time to answer, open items, tRPC calls by procedure, streams, job queue', async () => {
    const f = new Factories(server.database.db);
    const account = await f.account('owner');
    const headers = { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' };
    const form = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?' }] };
    const ask = async () =>
      (
        await app.inject({ method: 'POST', url: '/api/items', headers, payload: { title: 'OK?', form } })
      ).json<{
        id: string;
      }>();
    const first = await ask();
    await ask();
    expect(await metric(/^beckon_open_items (\d+)/m)).toBeGreaterThanOrEqual(2);
    const answered = await app.inject({
      method: 'POST',
      url: `/api/items/${first.id}/answer`,
      headers,
      payload: { values: { ok: true } },
    });
    expect(answered.statusCode).toBe(200);
    expect(await metric(/^beckon_time_to_answer_seconds_count\{answered_by="user"\} (\d+)/m)).toBe(1);

    await app.inject({ url: '/trpc/items.list', headers });
    await app.inject({ url: '/trpc/items.list,stats.get?batch=1&input={}', headers });
    await app.inject({ url: '/trpc/no.such.thing', headers });
    expect(await metric(/^beckon_trpc_calls_total\{procedure="stats.get",status="\d+"\} (\d+)/m)).toBe(1);
    expect(await metric(/^beckon_trpc_calls_total\{procedure="items.list",status="\d+"\} (\d+)/m)).toBe(2);
    expect(await metric(/^beckon_trpc_calls_total\{procedure="unknown",status="404"\} (\d+)/m)).toBe(1);
    expect(await metric(/^beckon_streams (\d+)/m)).toBe(0);
    expect(await metric(/^beckon_jobs\{state="ready"\} (\d+)/m)).toBeGreaterThanOrEqual(0);
  });
});
