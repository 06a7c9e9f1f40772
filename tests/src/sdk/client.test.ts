import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join as path } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type BeckonClient,
  ConflictError,
  createClient,
  InvalidRequestError,
  NetworkError,
  NotFoundError,
  PermissionDeniedError,
  PlanLimitError,
  UnauthorizedError,
  ValidationError,
} from '@beckon/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';
import { startFaultyProxy, yesNoForm } from './helpers';

let server: TestServer;
let f: Factories;

beforeAll(async () => {
  server = await startTestServer();
  f = new Factories(server.database.db);
});
afterAll(() => server?.close());

const client = (token: string, baseUrl = server.resource.baseUrl): BeckonClient =>
  createClient({ baseUrl, token, retryDelayMs: 20 });

async function owner() {
  const account = await f.account('owner');
  const key = await f.apiKey(account.org.id, account.user.id);
  return { ...account, beckon: client(account.token), agent: client(key.token) };
}

const countItems = async (orgId: string, title: string) =>
  (await server.database.sql`select 1 from items where org_id = ${orgId} and title = ${title}`).length;

describe('typed calls', () => {
  it('takes the address with or without /api (and a trailing slash)', async () => {
    const { token } = await f.account('owner');
    for (const suffix of ['', '/', '/api', '/api/']) {
      const beckon = client(token, `${server.resource.baseUrl}${suffix}`);
      const item = await beckon.notify({ title: `Through ${suffix || 'the origin'}` });
      expect((await beckon.get(item.id)).title).toBe(`Through ${suffix || 'the origin'}`);
    }
  });

  it('create, get, update, list and every action round-trip with their types', async () => {
    const { beckon } = await owner();
    const item = await beckon.notify({ title: 'Disk almost full', level: 'warning', tags: ['ops'] });
    expect(item).toMatchObject({ title: 'Disk almost full', level: 'warning', priority: 2, status: 'open' });
    expect(await beckon.get(item.id)).toEqual(item);
    expect((await beckon.update(item.id, { priority: 4, tags: ['ops', 'disk'] })).priority).toBe(4);

    expect((await beckon.pin(item.id)).pinned).toBe(true);
    expect((await beckon.unpin(item.id)).pinned).toBe(false);
    expect((await beckon.ack(item.id)).acked_at).not.toBeNull();
    const later = new Date(Date.now() + 3600_000);
    expect((await beckon.snooze(item.id, later)).snoozed_until).toBe(later.toISOString());
    expect((await beckon.list()).items.map((i) => i.id)).not.toContain(item.id);
    expect((await beckon.list({ include_snoozed: true })).items.map((i) => i.id)).toContain(item.id);
    expect((await beckon.unsnooze(item.id)).snoozed_until).toBeNull();
    expect((await beckon.archive(item.id)).status).toBe('archived');
    expect((await beckon.unarchive(item.id)).status).toBe('open');
    expect((await beckon.dismiss(item.id)).status).toBe('dismissed');
    expect((await beckon.restore(item.id)).status).toBe('open');

    const comment = await beckon.addComment(item.id, 'Looking into it');
    expect(comment).toMatchObject({ item_id: item.id, body: 'Looking into it', actor_type: 'user' });
    expect((await beckon.comments(item.id)).map((c) => c.body)).toEqual(['Looking into it']);
    expect((await beckon.timeline(item.id)).map((e) => e.action ?? e.entry_type)).toContain('item.create');
  });

  it('an agent asks, a person answers, and the agent reads the response; withdraw takes a question back', async () => {
    const { beckon, agent } = await owner();
    const { item } = await agent.ask({ title: 'Ship it?', form: yesNoForm });
    expect(item.form).toEqual(yesNoForm);
    expect(item.created_by.type).toBe('agent');
    await beckon.answer(item.id, { ok: true });
    expect(await agent.get(item.id)).toMatchObject({ status: 'answered', response: { ok: true } });

    const other = await agent.ask({ title: 'Never mind', form: yesNoForm });
    expect((await agent.withdraw(other.item.id)).status).toBe('withdrawn');
    expect((await agent.me()).agent_id).toBe(item.agent_id);
  });
});

describe('typed errors', () => {
  it('401: UnauthorizedError with the REST body', async () => {
    const error = await client('not-a-token')
      .list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
  });

  it('403: PermissionDeniedError names the missing permission', async () => {
    const { org } = await owner();
    const viewer = await f.user();
    await f.member(org.id, viewer.id, 'viewer');
    const session = await f.session(viewer.id, org.id);
    const error = await client(session.token)
      .notify({ title: 'Nope' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error).toMatchObject({ status: 403, required: 'items.write' });
  });

  it('404 NotFoundError, 409 ConflictError with the current status, 400 InvalidRequestError', async () => {
    const { beckon } = await owner();
    await expect(beckon.get(randomUUID())).rejects.toBeInstanceOf(NotFoundError);
    const item = await beckon.notify({ title: 'Once' });
    await beckon.dismiss(item.id);
    const conflict = await beckon.dismiss(item.id).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict).toMatchObject({ status: 409, currentStatus: 'dismissed' });
    const invalid = await beckon.notify({ title: 'x', priority: 9 }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).fields).toHaveProperty('priority');
  });

  it('422: ValidationError with the fields of a refused answer', async () => {
    const { beckon } = await owner();
    const { item } = await beckon.ask({ title: 'Ship it?', form: yesNoForm });
    const error = await beckon.answer(item.id, { ok: 'maybe' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).not.toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ status: 422, fields: { ok: expect.any(String) } });
  });

  it('402: PlanLimitError with key, limit, current and upgrade_url', async () => {
    const { beckon } = await owner();
    await server.database.sql`update plans set monthly_notifications = 1 where code = 'free'`;
    try {
      await beckon.notify({ title: 'First' });
      const error = await beckon.notify({ title: 'Second' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PlanLimitError);
      expect(error).toMatchObject({ status: 402, key: 'monthly_notifications', limit: 1, current: 1 });
      expect((error as PlanLimitError).upgrade_url).toMatch(/\/settings\/billing$/);
    } finally {
      await server.database.sql`update plans set monthly_notifications = 1000 where code = 'free'`;
    }
  });

  it('no server: NetworkError with status 0', async () => {
    const error = await client('x', 'http://127.0.0.1:9')
      .list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ status: 0 });
  });
});

describe('retries and Idempotency-Key', () => {
  it('a create whose response was lost is retried with the same key and makes one item', async () => {
    const { org, token } = await owner();
    const proxy = await startFaultyProxy(server.resource.baseUrl, (path, seen) =>
      path.endsWith('/items.create') || path.endsWith('/items.addComment')
        ? seen === 0
          ? 'drop-response'
          : 'pass'
        : seen === 0
          ? 'bad-gateway'
          : 'pass',
    );
    try {
      const beckon = client(token, proxy.url);
      const item = await beckon.notify({ title: 'Exactly once' });
      expect(await countItems(org.id, 'Exactly once')).toBe(1);
      const creates = proxy.requests.filter((r) => r.path.endsWith('/items.create'));
      expect(creates).toHaveLength(2);
      expect(creates[0]!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
      expect(creates[1]!.headers['idempotency-key']).toBe(creates[0]!.headers['idempotency-key']);

      await beckon.addComment(item.id, 'Said once');
      expect(await beckon.comments(item.id)).toHaveLength(1);
      // A read behind a proxy that answers 502 once (an HTML page, not JSON) is simply retried.
      expect((await beckon.get(item.id)).id).toBe(item.id);
    } finally {
      await proxy.close();
    }
  });

  it('an action is not resent after a lost response (it may have been applied)', async () => {
    const { token, beckon } = await owner();
    const item = await beckon.notify({ title: 'Dismiss me' });
    const proxy = await startFaultyProxy(server.resource.baseUrl, (path, seen) =>
      path.endsWith('/items.dismiss') && seen === 0 ? 'drop-response' : 'pass',
    );
    try {
      await expect(client(token, proxy.url).dismiss(item.id)).rejects.toBeInstanceOf(NetworkError);
      expect(proxy.requests.filter((r) => r.path.endsWith('/items.dismiss'))).toHaveLength(1);
      expect((await beckon.get(item.id)).status).toBe('dismissed');
    } finally {
      await proxy.close();
    }
  });

  it('a caller-given key makes its own retries safe; reusing it for another body is a 422', async () => {
    const { org, beckon } = await owner();
    const idempotencyKey = randomUUID();
    const first = await beckon.notify({ title: 'Keyed' }, { idempotencyKey });
    const again = await beckon.notify({ title: 'Keyed' }, { idempotencyKey });
    expect(again).toEqual(first);
    expect(await countItems(org.id, 'Keyed')).toBe(1);
    await expect(beckon.notify({ title: 'Other' }, { idempotencyKey })).rejects.toMatchObject({
      status: 422,
      body: { error: 'idempotency key reused with a different request' },
    });
  });
});

describe('browser safety', () => {
  it('the client entry (everything but src/cli) uses no Node-only module or global', async () => {
    const dir = fileURLToPath(new URL('../../../sdk/src/', import.meta.url));
    const files = (await readdir(dir)).filter((name) => name.endsWith('.ts'));
    expect(files).toContain('client.ts');
    for (const name of files) {
      expect(await readFile(path(dir, name), 'utf8'), name).not.toMatch(
        /from ['"]node:|\bprocess\.|\bBuffer\b/,
      );
    }
  });
});
