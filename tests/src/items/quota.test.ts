import { manualClock } from '@beckon/server/clock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, planLimitBody, startTestServer, type TestServer } from '../harness';

const clock = manualClock(new Date('2026-11-20T12:00:00Z'));
let server: TestServer;
let f: Factories;

beforeAll(async () => {
  server = await startTestServer({ clock });
  f = new Factories(server.database.db);
  // Plan limits lowered in this file's database, so the gate is reached in a few requests.
  await server.database.sql`update plans set monthly_notifications = 3 where code = 'free'`;
  await server.database.sql`update plans set monthly_notifications = 5 where code = 'team'`;
});
afterAll(() => server?.close());

async function owner(plan: 'free' | 'team' | 'enterprise' = 'free') {
  const account = await f.account('owner');
  await server.database.sql`
    update subscriptions set plan_id = (select id from plans where code = ${plan}) where org_id = ${account.org.id}`;
  return { orgId: account.org.id, client: server.resource.as(account.token) };
}

const create = (client: HttpClient, title = 'Ping') => client.post('/api/items', { title });

const count = async (table: 'items' | 'events' | 'audit_entries', orgId: string) => {
  const [row] = await server.database.sql<{ n: number }[]>`
    select count(*)::int as n from ${server.database.sql(table)} where org_id = ${orgId}`;
  return row?.n;
};

describe('monthly notification quota', () => {
  it('refuses creation at the limit with the 402 body, and writes nothing for it', async () => {
    const { orgId, client } = await owner('free');
    for (let i = 0; i < 3; i++) expect((await create(client)).status).toBe(201);
    const refused = await create(client);
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual(planLimitBody('monthly_notifications', 3, 3));
    expect(await count('items', orgId)).toBe(3);
    expect(await count('events', orgId)).toBe(3);
    expect(await count('audit_entries', orgId)).toBe(3);
  });

  it('counts per calendar month (UTC): a new month starts from zero', async () => {
    const { orgId, client } = await owner('free');
    for (let i = 0; i < 3; i++) await create(client);
    expect((await create(client)).status).toBe(402);
    clock.advance(15 * 24 * 3600_000);
    expect((await create(client)).status).toBe(201);
    const usage = await server.database.sql<{ month: string; notifications: number }[]>`
      select to_char(month, 'YYYY-MM') as month, notifications from monthly_usage where org_id = ${orgId} order by month`;
    expect(usage.map((u) => [u.month, u.notifications])).toEqual([
      ['2026-11', 3],
      ['2026-12', 1],
    ]);
  });

  it('never overshoots under concurrent creations', async () => {
    const { orgId, client } = await owner('team');
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => create(client, `t${i}`)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 402)).toHaveLength(7);
    expect(await count('items', orgId)).toBe(5);
  });

  it('never counts an unlimited plan', async () => {
    const { orgId, client } = await owner('enterprise');
    for (let i = 0; i < 6; i++) expect((await create(client)).status).toBe(201);
    const usage = await server.database.sql`select 1 from monthly_usage where org_id = ${orgId}`;
    expect(usage).toHaveLength(0);
  });
});
