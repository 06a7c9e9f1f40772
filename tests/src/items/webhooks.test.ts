import { createHmac } from 'node:crypto';
import { AttemptRecorder } from '@beckon/server/delivery/attempts';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, planLimitBody, receiverPool, startTestServer, type TestServer } from '../harness';

type Item = { id: string };
type Webhook = { id: string; name: string; active: boolean; disabled_reason: string | null; secret?: string };
type Delivery = {
  delivery_id: string;
  webhook_id: string | null;
  kind: string;
  attempt: number;
  status_code: number;
};

let server: TestServer;
let f: Factories;
const receivers = receiverPool();

beforeAll(async () => {
  server = await startTestServer({ worker: true });
  f = new Factories(server.database.db);
});
afterAll(async () => {
  await receivers.closeAll();
  await server?.close();
});

const receiver = receivers.start;

/** An organization on the Team plan (10 webhooks) with its owner signed in. */
async function owner(plan = 'team') {
  const account = await f.account('owner');
  await server.database.sql`
    update subscriptions set plan_id = (select id from plans where code = ${plan}) where org_id = ${account.org.id}`;
  return { ...account, api: server.resource.as(account.token) };
}

const FORM = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?', required: true }] };

const waitFor = async (condition: () => Promise<boolean>) => {
  for (let i = 0; i < 100 && !(await condition()); i++) await new Promise((r) => setTimeout(r, 50));
  return condition();
};

describe('outbound webhooks', () => {
  it('delivers the subscribed events, signed with the webhook secret, and nothing else', async () => {
    const { api } = await owner();
    const hook = await receiver();
    // An item before the webhook exists: the process now knows the organization has none.
    await api.post('/api/items', { title: 'before the webhook' });
    const created = await api.post<Webhook>('/api/webhooks', {
      name: 'ops',
      url: `${hook.url}/in`,
      events: ['item.created', 'item.answered'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'ops',
      active: true,
      events: ['item.created', 'item.answered'],
    });
    const secret = created.body.secret!;
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect((await api.get<Webhook[]>('/api/webhooks')).body[0]).not.toHaveProperty('secret');

    const item = (await api.post<Item>('/api/items', { title: 'Deploy?', form: FORM })).body;
    await api.post(`/api/items/${item.id}/ack`); // not subscribed
    await api.post(`/api/items/${item.id}/answer`, { values: { ok: true } });
    const received = await hook.waitFor(2);
    await new Promise((r) => setTimeout(r, 300));
    expect(hook.received).toHaveLength(2);

    const bodies = received.map(
      (r) => JSON.parse(r.body) as { id: string; type: string; data: { item: Item } },
    );
    expect(bodies.map((b) => b.type).sort()).toEqual(['item.answered', 'item.created']);
    for (const [index, request] of received.entries()) {
      expect(request.url).toBe('/in');
      expect(request.headers['x-service-event']).toBe(bodies[index]!.type);
      const signature = createHmac('sha256', secret).update(request.body).digest('hex');
      expect(request.headers['x-service-signature']).toBe(`sha256=${signature}`);
      expect(bodies[index]).toMatchObject({ id: expect.any(String), created_at: expect.any(String) });
      expect(bodies[index]!.data.item.id).toBe(item.id);
    }
  });

  it('delivers every kind to a webhook subscribed to *', async () => {
    const { api } = await owner();
    const hook = await receiver();
    const created = await api.post<Webhook & { events: string[] }>('/api/webhooks', {
      name: 'all',
      url: hook.url,
      events: ['item.created', '*'],
    });
    expect(created.body.events).toEqual(['*']);
    const item = (await api.post<Item>('/api/items', { title: 'everything' })).body;
    await api.post(`/api/items/${item.id}/ack`);
    await api.post(`/api/items/${item.id}/comments`, { body: 'noted' });
    const received = await hook.waitFor(3);
    expect(received.map((r) => r.headers['x-service-event']).sort()).toEqual([
      'item.acked',
      'item.commented',
      'item.created',
    ]);
  });

  it('retries a failed delivery with the same id and bytes, and shows every attempt', async () => {
    const { api } = await owner();
    const hook = await receiver((_request, index) => (index === 0 ? 503 : 200));
    const webhook = (
      await api.post<Webhook>('/api/webhooks', {
        name: 'flaky',
        url: hook.url,
        events: ['item.created'],
        secret: 'a-secret-of-our-own-1234',
      })
    ).body;
    expect(webhook).not.toHaveProperty('secret'); // given, so not echoed
    await api.post('/api/items', { title: 'retry me' });
    const [first, second] = await hook.waitFor(2);
    expect(second!.headers['x-service-delivery']).toBe(first!.headers['x-service-delivery']);
    expect(second!.body).toBe(first!.body);
    const expected = createHmac('sha256', 'a-secret-of-our-own-1234').update(second!.body).digest('hex');
    expect(second!.headers['x-service-signature']).toBe(`sha256=${expected}`);

    let deliveries: Delivery[] = [];
    await waitFor(async () => {
      deliveries = (await api.get<{ deliveries: Delivery[] }>(`/api/deliveries?webhook_id=${webhook.id}`))
        .body.deliveries;
      return deliveries.length === 2;
    });
    expect(deliveries.map((d) => [d.kind, d.attempt, d.status_code])).toEqual([
      ['webhook', 2, 200],
      ['webhook', 1, 503],
    ]);
    const page = await api.get<{ deliveries: Delivery[]; next_cursor: string }>(
      `/api/deliveries?webhook_id=${webhook.id}&limit=1`,
    );
    const next = await api.get<{ deliveries: Delivery[]; next_cursor: null }>(
      `/api/deliveries?webhook_id=${webhook.id}&limit=1&cursor=${page.body.next_cursor}`,
    );
    expect(next.body.deliveries.map((d) => d.attempt)).toEqual([1]);
    expect(next.body.next_cursor).toBeNull();
  });

  it('is disabled by a 410 Gone, and a deleted webhook gets nothing more', async () => {
    const { api } = await owner();
    const gone = await receiver(() => 410);
    const webhook = (
      await api.post<Webhook>('/api/webhooks', { name: 'gone', url: gone.url, events: ['item.created'] })
    ).body;
    await api.post('/api/items', { title: 'one' });
    await gone.waitFor(1);
    expect(
      await waitFor(async () => (await api.get<Webhook[]>('/api/webhooks')).body[0]?.active === false),
    ).toBe(true);
    expect((await api.get<Webhook[]>('/api/webhooks')).body[0]!.disabled_reason).toMatch(/410/);
    await api.post('/api/items', { title: 'two' });

    const later = await receiver();
    const other = (
      await api.post<Webhook>('/api/webhooks', { name: 'later', url: later.url, events: ['item.created'] })
    ).body;
    expect((await api.delete(`/api/webhooks/${other.id}`)).status).toBe(200);
    await api.post('/api/items', { title: 'three' });
    await new Promise((r) => setTimeout(r, 500));
    expect(gone.received).toHaveLength(1);
    expect(later.received).toHaveLength(0);
    expect((await api.delete(`/api/webhooks/${webhook.id}`)).status).toBe(200);
    expect((await api.delete(`/api/webhooks/${webhook.id}`)).status).toBe(404);
  });

  it('validates, gates on the plan (Free: 1), needs webhooks.manage and hides other organizations', async () => {
    const { api, org } = await owner('free');
    const bad = await api.post('/api/webhooks', {
      name: '',
      url: 'ftp://x',
      events: ['item.exploded'],
      secret: 'short',
    });
    expect(bad.status).toBe(400);
    expect(Object.keys((bad.body as { fields: object }).fields).sort()).toEqual([
      'events.0',
      'name',
      'secret',
      'url',
    ]);
    const url = 'https://hooks.example.com/beckon';
    expect((await api.post('/api/webhooks', { name: 'a', url, events: ['item.created'] })).status).toBe(201);
    const over = await api.post('/api/webhooks', { name: 'b', url, events: ['item.created'] });
    expect(over.status).toBe(402);
    expect(over.body).toEqual(planLimitBody('webhooks', 1, 1));

    const user = await f.user();
    await f.member(org.id, user.id, 'member');
    const member = server.resource.as((await f.session(user.id, org.id)).token);
    expect((await member.get('/api/webhooks')).body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'webhooks.manage',
    });
    const stranger = (await owner()).api;
    expect((await stranger.get<Webhook[]>('/api/webhooks')).body).toEqual([]);
    const mine = (await api.get<Webhook[]>('/api/webhooks')).body[0]!;
    expect((await stranger.delete(`/api/webhooks/${mine.id}`)).status).toBe(404);
    expect(
      (await stranger.get<{ deliveries: unknown[] }>(`/api/deliveries?webhook_id=${mine.id}`)).body
        .deliveries,
    ).toEqual([]);
  });
});

describe('delivery log', () => {
  it('shows callback attempts too, by item', async () => {
    const { api } = await owner();
    const hook = await receiver();
    const item = (await api.post<Item>('/api/items', { title: 'cb', callback_url: hook.url })).body;
    await api.post(`/api/items/${item.id}/dismiss`);
    await hook.waitFor(1);
    let deliveries: Delivery[] = [];
    await waitFor(async () => {
      deliveries = (await api.get<{ deliveries: Delivery[] }>(`/api/deliveries?item_id=${item.id}`)).body
        .deliveries;
      return deliveries.length === 1;
    });
    expect(deliveries[0]).toMatchObject({ kind: 'callback', webhook_id: null, attempt: 1, status_code: 200 });
    expect((await api.get('/api/deliveries?cursor=nonsense')).status).toBe(400);
  });

  it('keeps every attempt of a batch when one belongs to a webhook deleted meanwhile', async () => {
    const { api, org } = await owner();
    const item = (await api.post<Item>('/api/items', { title: 'batch' })).body;
    const [gone] = await server.database.sql<{ id: string }[]>`
      insert into webhooks (org_id, name, url, events, secret)
      values (${org.id}, 'gone', 'https://example.com', '{item.created}', 'secret') returning id`;
    await server.database.sql`delete from webhooks where id = ${gone!.id}`;
    const recorder = new AttemptRecorder(server.database.sql);
    const row = (kind: 'callback' | 'webhook', webhookId: string | null) => ({
      id: uuidv7(),
      org_id: org.id,
      delivery_id: uuidv7(),
      kind,
      webhook_id: webhookId,
      item_id: item.id,
      event: 'item.created',
      url: 'https://example.com',
      attempt: 1,
      status_code: 200,
      error: null,
      duration_ms: 1,
    });
    const rows = [row('webhook', gone!.id), row('callback', null)];
    await Promise.all(rows.map((r) => recorder.record(r)));
    const stored = await server.database.sql<{ kind: string; webhook_id: string | null }[]>`
      select kind, webhook_id from delivery_attempts where id in ${server.database.sql(rows.map((r) => r.id))}
      order by kind`;
    expect(stored).toEqual([
      { kind: 'callback', webhook_id: null },
      { kind: 'webhook', webhook_id: null },
    ]);
  });
});
