import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpClient, signedInCallers, startTestServer, type TestServer } from '../harness';

type Setting = { key: string; value: unknown; updated_at: string };
type Invalid = { error: string; fields: Record<string, string> };

let server: TestServer;
let owner: HttpClient;
let member: HttpClient;
let viewer: HttpClient;
let other: HttpClient;

beforeAll(async () => {
  server = await startTestServer();
  ({ owner, member, viewer, other } = await signedInCallers(server.database.db, server.resource));
});
afterAll(() => server?.close());

const put = async (key: string, value: unknown, client = owner) => {
  const res = await client.put<Setting>(`/api/settings/${key}`, { value });
  expect(res.status).toBe(200);
  return res.body;
};

describe('settings', () => {
  it('stores any JSON value and lists the settings sorted by key', async () => {
    const values: Record<string, unknown> = {
      'retention.days': 30,
      'ui.theme': 'dark',
      Feature_Flags: { beta: true, list: [1, 'two', null] },
      'empty-list': [],
      nothing: null,
      enabled: false,
    };
    for (const [key, value] of Object.entries(values)) {
      const saved = await put(key, value);
      expect(saved).toEqual({
        key,
        value,
        updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
    }
    const list = await viewer.get<Setting[]>('/api/settings');
    expect(list.status).toBe(200);
    expect(list.body.map((s) => s.key)).toEqual([
      'Feature_Flags',
      'empty-list',
      'enabled',
      'nothing',
      'retention.days',
      'ui.theme',
    ]);
    expect(Object.fromEntries(list.body.map((s) => [s.key, s.value]))).toEqual(values);
  });

  it('replaces the value of an existing key', async () => {
    const first = await put('replaced', { v: 1 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await put('replaced', 'now a string');
    expect(second.value).toBe('now a string');
    expect(second.updated_at > first.updated_at).toBe(true);
    const listed = (await owner.get<Setting[]>('/api/settings')).body.filter((s) => s.key === 'replaced');
    expect(listed).toEqual([second]);
  });

  it('answers 400 for a bad key, a missing value, unknown fields and a value over 16 KiB', async () => {
    // Over REST a path segment over 100 characters never reaches the procedure (the router's
    // limit); the same procedure over tRPC refuses the key by its rule.
    const badKey = await owner.post<{ error: { data: { httpStatus: number; body: Invalid } } }>(
      '/trpc/settings.put',
      { key: 'k'.repeat(101), value: 1 },
    );
    expect(badKey.status).toBe(400);
    expect(Object.keys(badKey.body.error.data.body.fields)).toEqual(['key']);
    const badChars = await owner.put('/api/settings/a%20b', { value: 1 });
    expect(Object.keys((badChars.body as Invalid).fields)).toEqual(['key']);
    expect((await owner.put(`/api/settings/${'k'.repeat(100)}`, { value: 1 })).status).toBe(200);

    const missing = await owner.put('/api/settings/x', {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { value: 'Required' },
    });
    const unknown = await owner.put('/api/settings/x', { value: 1, valeu: 2 });
    expect(unknown.body).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { valeu: 'unknown field' },
    });

    // 16 KiB serialized is the limit: the JSON string "aaa…" is the length plus two quotes.
    expect((await owner.put('/api/settings/big', { value: 'a'.repeat(16 * 1024 - 2) })).status).toBe(200);
    const tooBig = await owner.put('/api/settings/big', { value: 'a'.repeat(16 * 1024 - 1) });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { value: 'must be at most 16384 bytes as JSON' },
    });
    const big = (await owner.get<Setting[]>('/api/settings')).body.find((s) => s.key === 'big');
    expect(big?.value).toBe('a'.repeat(16 * 1024 - 2));
    const keys = (await owner.get<Setting[]>('/api/settings')).body.map((s) => s.key);
    expect(keys).not.toContain('x');
  });

  it('needs org.manage to write and items.read to read', async () => {
    for (const client of [member, viewer]) {
      const denied = await client.put('/api/settings/ui.theme', { value: 'light' });
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual({
        error: 'permission denied',
        code: 'permission_denied',
        required: 'org.manage',
      });
      expect((await client.get('/api/settings')).status).toBe(200);
    }
    const theme = (await owner.get<Setting[]>('/api/settings')).body.find((s) => s.key === 'ui.theme');
    expect(theme?.value).toBe('dark');
    expect((await server.resource.get('/api/settings')).status).toBe(401);
  });

  it('keeps organizations apart', async () => {
    expect((await other.get<Setting[]>('/api/settings')).body).toEqual([]);
    await put('ui.theme', 'solarized', other);
    expect((await other.get<Setting[]>('/api/settings')).body.map((s) => [s.key, s.value])).toEqual([
      ['ui.theme', 'solarized'],
    ]);
    const mine = (await owner.get<Setting[]>('/api/settings')).body.find((s) => s.key === 'ui.theme');
    expect(mine?.value).toBe('dark');
  });
});
