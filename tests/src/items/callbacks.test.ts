import { createHmac } from 'node:crypto';
import { recordChange } from '@beckon/server/modules/items/changes/record-change';
import type { ItemRow } from '@beckon/server/modules/items/rows/item-view';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, receiverPool, startTestServer, type TestServer } from '../harness';

type Item = { id: string; status: string };

let server: TestServer;
let client: HttpClient;
let userId: string;
let secret: string;
const receivers = receiverPool();

const FORM = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?', required: true }] };

beforeAll(async () => {
  server = await startTestServer({ worker: true });
  const account = await new Factories(server.database.db).account('owner');
  client = server.resource.as(account.token);
  userId = account.user.id;
  const [org] = await server.database.sql<{ callback_secret: string }[]>`
    select callback_secret from organizations where id = ${account.org.id}`;
  secret = org!.callback_secret;
});
afterAll(async () => {
  await receivers.closeAll();
  await server?.close();
});

const receiver = receivers.start;

const attempts = (itemId: string) =>
  server.database.sql<
    { attempt: number; status_code: number | null; error: string | null; delivery_id: string }[]
  >`
    select attempt, status_code, error, delivery_id from delivery_attempts where item_id = ${itemId} order by attempt`;

describe('callbacks', () => {
  it('POSTs the outcome, signed with the organization secret', async () => {
    const hook = await receiver();
    const item = (
      await client.post<Item>('/api/items', {
        title: 'Approve?',
        form: FORM,
        metadata: { ticket: 7 },
        callback_url: `${hook.url}/cb`,
      })
    ).body;
    await client.post(`/api/items/${item.id}/answer`, { values: { ok: true } });
    const [request] = await hook.waitFor(1);
    expect(request!.url).toBe('/cb');
    const body = JSON.parse(request!.body);
    expect(body).toEqual({
      item_id: item.id,
      status: 'answered',
      response: { ok: true },
      answered_at: expect.stringMatching(/Z$/),
      answered_by: { type: 'user', id: userId },
      answered_via: null,
      action_digest: null,
      // The decision's signed receipt (tests/src/proofs/receipts.test.ts verifies them).
      receipt: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      metadata: { ticket: 7 },
      title: 'Approve?',
      event: 'item.answered',
    });
    const expected = createHmac('sha256', secret).update(request!.body).digest('hex');
    expect(request!.headers['x-service-signature']).toBe(`sha256=${expected}`);
    expect(request!.headers['x-service-event']).toBe('item.answered');
    expect(request!.headers['webhook-id']).toBe(request!.headers['x-service-delivery']);
    expect(request!.headers['content-type']).toContain('application/json');
  });

  it('reports dismiss, ack (once), archive and restore, each with the outcome status', async () => {
    const hook = await receiver();
    const item = (await client.post<Item>('/api/items', { title: 'x', callback_url: hook.url })).body;
    for (const action of ['ack', 'ack', 'dismiss', 'archive', 'unarchive', 'restore']) {
      expect((await client.post(`/api/items/${item.id}/${action}`)).status).toBe(200);
    }
    const received = await hook.waitFor(5);
    await new Promise((r) => setTimeout(r, 300)); // a second ack changes nothing: nothing more comes
    expect(hook.received).toHaveLength(5);
    const seen = received.map((r) => JSON.parse(r.body) as { event: string; status: string });
    expect(seen.map((b) => `${b.event}:${b.status}`).sort()).toEqual(
      [
        'item.acked:open',
        'item.dismissed:dismissed',
        'item.archived:dismissed',
        'item.unarchived:dismissed',
        'item.restored:open',
      ].sort(),
    );
  });

  it('retries after a 500 with the same delivery id, recording every attempt', async () => {
    const hook = await receiver((_request, index) => (index === 0 ? 500 : 200));
    const item = (await client.post<Item>('/api/items', { title: 'retry', callback_url: hook.url })).body;
    await client.post(`/api/items/${item.id}/dismiss`);
    const [first, second] = await hook.waitFor(2);
    expect(second!.headers['x-service-delivery']).toBe(first!.headers['x-service-delivery']);
    expect(second!.body).toBe(first!.body);
    let rows = await attempts(item.id);
    for (let i = 0; i < 50 && rows.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 50));
      rows = await attempts(item.id);
    }
    expect(rows.map((r) => [r.attempt, r.status_code])).toEqual([
      [1, 500],
      [2, 200],
    ]);
  });

  it('sends nothing when the change rolls back', async () => {
    const hook = await receiver();
    const item = (await client.post<Item>('/api/items', { title: 'rollback', callback_url: hook.url })).body;
    const failed = server.database.sql.begin(async (tx) => {
      const [row] = await tx<
        ItemRow[]
      >`update items set status = 'dismissed' where id = ${item.id} returning *`;
      await recordChange(tx, {
        row: { ...(row as ItemRow), channel_name: null },
        action: 'item.dismiss',
        actor: { type: 'system', id: null },
        event: 'item.dismissed',
      });
      throw new Error('abort the transaction');
    });
    await expect(failed).rejects.toThrow('abort the transaction');
    // The queue's own table (its public view has no payload): nothing was enqueued for this item.
    const jobs = await server.database.sql`
      select 1 from graphile_worker._private_jobs where payload->>'item_id' = ${item.id}`;
    expect(jobs).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(hook.received).toHaveLength(0);
    expect((await client.get<Item>(`/api/items/${item.id}`)).body.status).toBe('open');
  });

  it('expires an open item at its deadline and reports it', async () => {
    const hook = await receiver();
    const deadline = new Date(Date.now() + 800).toISOString();
    const item = (
      await client.post<Item>('/api/items', { title: 'soon', deadline_at: deadline, callback_url: hook.url })
    ).body;
    const answeredInTime = (
      await client.post<Item>('/api/items', {
        title: 'in time',
        form: FORM,
        deadline_at: deadline,
        callback_url: hook.url,
      })
    ).body;
    await client.post(`/api/items/${answeredInTime.id}/answer`, { values: { ok: true } });
    const received = await hook.waitFor(2);
    const bodies = received.map(
      (r) => JSON.parse(r.body) as { item_id: string; event: string; status: string },
    );
    expect(bodies).toContainEqual(
      expect.objectContaining({ item_id: item.id, event: 'item.expired', status: 'expired' }),
    );
    expect((await client.get<Item>(`/api/items/${item.id}`)).body.status).toBe('expired');
    await new Promise((r) => setTimeout(r, 1000));
    expect((await client.get<Item>(`/api/items/${answeredInTime.id}`)).body.status).toBe('answered');
    expect(hook.received.filter((r) => r.body.includes('item.expired'))).toHaveLength(1);
  });

  it('expires an item unarchived after its deadline passed while archived', async () => {
    const hook = await receiver();
    const deadline = new Date(Date.now() + 500).toISOString();
    const item = (
      await client.post<Item>('/api/items', {
        title: 'shelved',
        deadline_at: deadline,
        callback_url: hook.url,
      })
    ).body;
    await client.post(`/api/items/${item.id}/archive`);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await client.get<Item>(`/api/items/${item.id}`)).body.status).toBe('archived');
    expect((await client.post<Item>(`/api/items/${item.id}/unarchive`)).body.status).toBe('open');
    const received = await hook.waitFor(3);
    expect(received.map((r) => (JSON.parse(r.body) as { event: string }).event).sort()).toEqual([
      'item.archived',
      'item.expired',
      'item.unarchived',
    ]);
    expect((await client.get<Item>(`/api/items/${item.id}`)).body.status).toBe('expired');
  });
});

describe('callbacks to private addresses', () => {
  it('are refused at connection time when ALLOW_PRIVATE_DESTINATIONS is off', async () => {
    const strict = await startTestServer({ worker: true, env: { ALLOW_PRIVATE_DESTINATIONS: 'false' } });
    try {
      const hook = await receiver();
      const account = await new Factories(strict.database.db).account('owner');
      const strictClient = strict.resource.as(account.token);
      const item = (await strictClient.post<Item>('/api/items', { title: 'ssrf', callback_url: hook.url }))
        .body;
      await strictClient.post(`/api/items/${item.id}/dismiss`);
      let rows: Array<{ error: string | null }> = [];
      for (let i = 0; i < 100 && rows.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
        rows = await strict.database.sql`select error from delivery_attempts where item_id = ${item.id}`;
      }
      expect(rows).toHaveLength(1);
      expect(rows[0]!.error).toMatch(/^destination not allowed/);
      expect(hook.received).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });
});
