import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInCallers, startTestServer, type TestServer } from '../harness';

type Created = { id: string; name: string; token: string; url: string };
type Item = { id: string; title: string; created_by: { type: string; id: string }; agent_id: string | null };

let server: TestServer;
let callers: Awaited<ReturnType<typeof signedInCallers>>;

beforeAll(async () => {
  server = await startTestServer();
  callers = await signedInCallers(server.database.db, server.resource);
});
afterAll(() => server?.close());

const deliver = (token: string, body: unknown, headers: Record<string, string> = {}) =>
  server.resource.as(null).post<Item>(`/api/webhooks/inbound/${token}`, body, { headers });

async function createHook(name = 'ci') {
  const res = await callers.owner.post<Created>('/api/inbound-webhooks', { name });
  expect(res.status).toBe(201);
  return res.body;
}

describe('inbound webhooks', () => {
  it('are created with a token shown once, listed without it, managed with webhooks.manage', async () => {
    const hook = await createHook('github');
    expect(hook.url).toBe(`http://localhost:3000/api/webhooks/inbound/${hook.token}`);
    const list = await callers.owner.get<Array<Record<string, unknown>>>('/api/inbound-webhooks');
    expect(list.body.map((h) => h.name)).toContain('github');
    expect(list.text).not.toContain(hook.token);
    const denied = await callers.member.post('/api/inbound-webhooks', { name: 'x' });
    expect(denied.body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'webhooks.manage',
    });
    expect((await callers.other.get<unknown[]>('/api/inbound-webhooks')).body).toEqual([]);
  });

  it('create items as the inbound webhook, without a bearer token', async () => {
    const hook = await createHook();
    const res = await deliver(hook.token, { title: 'Build failed', level: 'error', tags: ['ci'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      title: 'Build failed',
      created_by: { type: 'agent', id: hook.id },
      agent_id: null,
    });
    const seen = await callers.viewer.get<Item>(`/api/items/${res.body.id}`);
    expect(seen.status).toBe(200);
  });

  it('refuse an unknown token (404) and a bad payload (400)', async () => {
    const hook = await createHook();
    expect((await deliver('not-a-token', { title: 'x' })).status).toBe(404);
    // The token is checked first: a bad payload to an unknown token is still a 404.
    expect((await deliver('not-a-token', { title: '', priority: 9 })).status).toBe(404);
    const bad = await deliver(hook.token, { title: '', priority: 9 });
    expect(bad.status).toBe(400);
    expect(Object.keys((bad.body as unknown as { fields: object }).fields).sort()).toEqual([
      'priority',
      'title',
    ]);
  });

  it('replay an Idempotency-Key', async () => {
    const hook = await createHook();
    const first = await deliver(hook.token, { title: 'Once' }, { 'idempotency-key': 'evt-1' });
    const again = await deliver(hook.token, { title: 'Once' }, { 'idempotency-key': 'evt-1' });
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('stop working once deleted; another organization cannot delete them', async () => {
    const hook = await createHook();
    expect((await callers.other.delete(`/api/inbound-webhooks/${hook.id}`)).status).toBe(404);
    expect((await callers.owner.delete(`/api/inbound-webhooks/${hook.id}`)).status).toBe(200);
    expect((await deliver(hook.token, { title: 'x' })).status).toBe(404);
  });

  it('count against the monthly quota (402 with the limit fields)', async () => {
    const hook = await createHook();
    await server.database.sql`
      update plans set monthly_notifications = (
        select coalesce(sum(notifications), 0) + 1 from monthly_usage where org_id = ${callers.orgId})
       where code = 'free'`;
    expect((await deliver(hook.token, { title: 'last one' })).status).toBe(201);
    const refused = await deliver(hook.token, { title: 'one too many' });
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({
      error: 'plan_limit_exceeded',
      code: 'plan_limit_exceeded',
      key: 'monthly_notifications',
    });
  });
});

describe('OpenAPI', () => {
  it('documents the inbound delivery with the item creation body', async () => {
    type Op = {
      requestBody?: { content: Record<string, { schema: unknown }> };
      security?: unknown[];
      parameters?: { name: string; in: string }[];
    };
    type Doc = { paths: Record<string, Record<string, Op>> };
    const doc = (await server.resource.get<Doc>('/api/openapi.json')).body;
    expect(doc.paths['/inbound-webhooks']).toBeDefined();
    const inbound = doc.paths['/webhooks/inbound/{token}']?.post;
    const schema = (op: Op | undefined) => op?.requestBody?.content['application/json']?.schema;
    expect(schema(inbound)).toEqual(schema(doc.paths['/items']?.post));
    expect(JSON.stringify(inbound?.requestBody)).toContain('"title"');
    // Generated from its procedure like every route: the token is a path parameter, no bearer.
    expect(inbound?.parameters).toEqual([
      expect.objectContaining({ name: 'token', in: 'path' }),
      expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }),
    ]);
    expect(inbound?.security ?? []).toEqual([]);
    expect(doc.paths['/items']?.post?.security).not.toEqual([]);
  });
});
