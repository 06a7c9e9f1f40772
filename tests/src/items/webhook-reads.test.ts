import type { Sql } from '@beckon/db';
import { WebhookReads } from '@beckon/server/delivery/webhook-reads';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';

let server: TestServer;
let f: Factories;

beforeAll(async () => {
  server = await startTestServer();
  f = new Factories(server.database.db);
});
afterAll(async () => {
  await server?.close();
});

/** An organization with two webhooks and the event of one item it created. */
async function organization() {
  const { org, token } = await f.account('owner');
  const { sql } = server.database;
  const hooks = await sql<{ id: string }[]>`
    insert into webhooks (org_id, name, url, events, secret)
    values (${org.id}, 'one', 'https://one.example', '{item.created}', 'secret-one'),
           (${org.id}, 'two', 'https://two.example', '{item.created}', 'secret-two')
    returning id`;
  await server.resource.as(token).post('/api/items', { title: 'watched' });
  const [event] = await sql<{ id: string }[]>`select id from events where org_id = ${org.id}`;
  return { orgId: org.id, hooks: hooks.map((h) => h.id), eventId: event!.id };
}

describe('webhook reads', () => {
  it('serves the reads of one turn with one query per organization, each its own rows only', async () => {
    const a = await organization();
    const b = await organization();
    let queries = 0;
    const { sql } = server.database;
    const counted = ((...args: Parameters<Sql>) => {
      queries += 1;
      return sql(...args);
    }) as Sql;
    const reads = new WebhookReads(counted);
    const [first, retry, second, unknown, otherOrg, foreignHook] = await Promise.all([
      reads.read(a.orgId, a.hooks[0]!, a.eventId),
      reads.read(a.orgId, a.hooks[0]!, null),
      reads.read(a.orgId, a.hooks[1]!, a.eventId),
      reads.read(a.orgId, uuidv7(), a.eventId),
      // Another organization's event is not read with this one's webhook, nor its webhook at all.
      reads.read(b.orgId, b.hooks[0]!, a.eventId),
      reads.read(b.orgId, a.hooks[1]!, b.eventId),
    ]);
    expect(queries).toBe(2);
    expect(first).toMatchObject({
      id: a.hooks[0],
      org_id: a.orgId,
      secret: 'secret-one',
      event_id: a.eventId,
    });
    expect(first?.type).toBe('item.created');
    expect(retry).toMatchObject({ id: a.hooks[0], event_id: null, data: null });
    expect(second).toMatchObject({ id: a.hooks[1], url: 'https://two.example', event_id: a.eventId });
    expect(unknown).toBeUndefined();
    expect(otherOrg).toMatchObject({ id: b.hooks[0], org_id: b.orgId, event_id: null });
    expect(foreignHook).toBeUndefined();

    // A later turn is a query of its own.
    expect(await reads.read(b.orgId, b.hooks[1]!, b.eventId)).toMatchObject({ event_id: b.eventId });
    expect(queries).toBe(3);
  });

  it('fails every read of a batch whose query fails, and serves the next', async () => {
    const { orgId, hooks } = await organization();
    const reads = new WebhookReads(server.database.sql);
    const failed = await Promise.allSettled([
      reads.read(orgId, hooks[0]!, null),
      reads.read(orgId, 'not-a-uuid', null),
    ]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await reads.read(orgId, hooks[0]!, null)).toMatchObject({ id: hooks[0] });
  });
});
