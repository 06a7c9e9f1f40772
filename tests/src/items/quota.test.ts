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

describe('monthly notification quota, counted in shards', () => {
  /** Creations over many database connections at once (each counts in its connection's shard). */
  const createMany = async (orgId: string, n: number) => {
    const settled = await Promise.allSettled(
      Array.from({ length: n }, (_, i) =>
        server.database.sql.begin(async (tx) => {
          await tx`select pg_sleep(0.01)`;
          await tx`insert into items (id, org_id, title, created_by_type) values (gen_random_uuid(), ${orgId}, ${`s${i}`}, 'service')`;
        }),
      ),
    );
    return {
      created: settled.filter((s) => s.status === 'fulfilled').length,
      refused: settled.filter((s) => s.status === 'rejected' && /quota exhausted/.test(String(s.reason)))
        .length,
    };
  };

  it('counts exactly to a limit that needs allowance taken back from other shards', async () => {
    const { orgId } = await owner('team');
    await server.database.sql`update plans set monthly_notifications = 200 where code = 'team'`;
    try {
      const first = await createMany(orgId, 150);
      expect(first).toEqual({ created: 150, refused: 0 });
      const second = await createMany(orgId, 80);
      expect(second).toEqual({ created: 50, refused: 30 });
      const [usage] = await server.database.sql<{ notifications: number }[]>`
        select notifications from monthly_usage where org_id = ${orgId}`;
      expect(usage?.notifications).toBe(200);
      expect(await count('items', orgId)).toBe(200);
      const [shards] = await server.database.sql<{ shards: number; allowance: number; allotted: number }[]>`
        select count(*)::int as shards, sum(allowance)::int as allowance,
               (select allotted from monthly_allotments where org_id = ${orgId}) as allotted
          from monthly_usage_shards where org_id = ${orgId}`;
      expect(shards!.shards).toBeGreaterThan(1);
      expect(shards!.allowance).toBe(shards!.allotted);
      expect(shards!.allotted).toBeLessThanOrEqual(200);
    } finally {
      await server.database.sql`update plans set monthly_notifications = 5 where code = 'team'`;
    }
  });
});
