import { PERMISSION_CATALOG } from '@beckon/contracts/permissions';
import { schema } from '@beckon/db';
import { pruneExpired } from '@beckon/server/jobs/prune-expired';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, Factories, type TestDatabase } from '../harness';

let database: TestDatabase;
let f: Factories;
const DAY = 24 * 3600 * 1000;

beforeAll(async () => {
  database = await createTestDatabase();
  f = new Factories(database.db);
});
afterAll(() => database?.drop());

/** The Owner holds the whole catalog (the specification's system roles table). */
const OWNER = [...PERMISSION_CATALOG];

/** Postgres error code of a failing statement. */
const failure = async (statement: Promise<unknown>) => {
  try {
    await statement;
  } catch (error) {
    return (
      (error as { code?: string; cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code
    );
  }
  return 'no error';
};

describe('seeds', () => {
  it('has exactly the four system roles with the specified permissions', async () => {
    const rows = await database.sql<
      { name: string; permissions: string[]; is_system: boolean; org_id: null }[]
    >`
      select name, permissions, is_system, org_id from roles where is_system order by name`;
    const byName = Object.fromEntries(rows.map((r) => [r.name, r]));
    expect(Object.keys(byName).sort()).toEqual(['admin', 'member', 'owner', 'viewer']);
    expect(byName.owner!.permissions).toEqual(OWNER);
    expect(byName.admin!.permissions).toEqual(OWNER.filter((p) => p !== 'org.delete' && p !== 'org.billing'));
    expect(byName.member!.permissions).toEqual(['items.read', 'items.write', 'items.archive']);
    expect(byName.viewer!.permissions).toEqual(['items.read']);
    expect(rows.every((r) => r.org_id === null && r.is_system)).toBe(true);
  });

  it('has the three plans with their limits (null = unlimited) and retention', async () => {
    const rows = await database.sql`
      select code, max_seats, max_teams, monthly_notifications, webhooks, agents, audit_retention_days
        from plans order by audit_retention_days`;
    expect(rows).toEqual([
      {
        code: 'free',
        max_seats: 3,
        max_teams: 1,
        monthly_notifications: 1000,
        webhooks: 1,
        agents: 1,
        audit_retention_days: 30,
      },
      {
        code: 'team',
        max_seats: 25,
        max_teams: 5,
        monthly_notifications: 50000,
        webhooks: 10,
        agents: 10,
        audit_retention_days: 90,
      },
      {
        code: 'enterprise',
        max_seats: null,
        max_teams: null,
        monthly_notifications: null,
        webhooks: null,
        agents: null,
        audit_retention_days: 365,
      },
    ]);
  });
});

describe('database rules', () => {
  it('gives every new organization exactly one subscription, on Free', async () => {
    const org = await f.org();
    const subs = await database.sql`
      select p.code, s.status from subscriptions s join plans p on p.id = s.plan_id where s.org_id = ${org.id}`;
    expect(subs).toEqual([{ code: 'free', status: 'active' }]);
    const free = await database.sql`select id from plans where code = 'free'`;
    const second = database.sql`insert into subscriptions (org_id, plan_id) values (${org.id}, ${free[0]!.id})`;
    expect(await failure(second)).toBe('23505');
  });

  it('rejects a plan change on a personal workspace, and allows it on a team organization', async () => {
    const personal = await f.org({ personal: true });
    const team = await f.org();
    const upgrade = (orgId: string) => database.sql`
      update subscriptions set plan_id = (select id from plans where code = 'team') where org_id = ${orgId}`;
    expect(await failure(upgrade(personal.id))).toBe('23514');
    await upgrade(team.id);
    const [row] = await database.sql`
      select p.code from subscriptions s join plans p on p.id = s.plan_id where s.org_id = ${team.id}`;
    expect(row!.code).toBe('team');
  });

  it('keeps system roles read-only', async () => {
    expect(
      await failure(database.sql`update roles set permissions = '{*}' where name = 'viewer' and is_system`),
    ).toBe('23514');
    expect(await failure(database.sql`delete from roles where name = 'viewer' and is_system`)).toBe('23514');
  });

  it('keeps role names unique per organization and among system roles', async () => {
    const a = await f.org();
    const b = await f.org();
    const insert = (orgId: string | null, name: string) =>
      database.db
        .insert(schema.roles)
        .values({ orgId, name, isSystem: orgId === null, permissions: ['items.read'] });
    await insert(a.id, 'reviewer');
    await insert(b.id, 'reviewer');
    await insert(a.id, 'owner'); // a custom role may share a system role's name
    expect(await failure(insert(a.id, 'reviewer'))).toBe('23505');
    expect(await failure(insert(null, 'owner'))).toBe('23505');
    // is_system is true exactly for the shared roles
    expect(
      await failure(database.db.insert(schema.roles).values({ orgId: a.id, name: 'x', isSystem: true })),
    ).toBe('23514');
  });

  it('requires a role on every membership', async () => {
    const org = await f.org();
    const user = await f.user();
    expect(
      await failure(database.sql`insert into memberships (org_id, user_id) values (${org.id}, ${user.id})`),
    ).toBe('23502');
  });

  it('indexes title and message for full-text search', async () => {
    const org = await f.org();
    await database.db.insert(schema.items).values([
      {
        orgId: org.id,
        title: 'Deploy to production?',
        message: 'The canary looks healthy',
        createdByType: 'agent',
      },
      { orgId: org.id, title: 'Weekly report', message: 'Nothing to see', createdByType: 'agent' },
    ]);
    const hits = await database.sql`
      select title from items where org_id = ${org.id} and search @@ websearch_to_tsquery('simple', 'canary')`;
    expect(hits.map((h) => h.title)).toEqual(['Deploy to production?']);
    const [index] = await database.sql`select indexdef from pg_indexes where indexname = 'items_search_idx'`;
    expect(index!.indexdef).toContain('USING gin');
  });
});

describe('prune_expired job', () => {
  it('drops stale credentials and counters of past windows, and keeps the rest', async () => {
    const { org, user, session } = await f.account();
    const stale = await f.session(user.id, org.id, { expiresAt: new Date(Date.now() - 2 * DAY) });
    const live = await f.session(user.id, org.id);
    await database.sql`
      insert into rate_limit_counters (key, window_start, window_end, hits) values
        ('api:old', now() - interval '2 hours', now() - interval '1 hour', 3),
        ('api:current', now() - interval '10 seconds', now() + interval '50 seconds', 1)`;

    const counts = await pruneExpired(database.sql);
    expect(counts.sessions).toBeGreaterThanOrEqual(1);
    expect(counts.rate_limit_counters).toBe(1);
    const counters = await database.sql`select key from rate_limit_counters`;
    expect(counters.map((c) => c.key)).toEqual(['api:current']);
    const sessions = await database.db
      .select()
      .from(schema.sessions)
      .where(eq(schema.sessions.userId, user.id));
    expect(sessions.map((s) => s.id).sort()).toEqual([session.id, live.id].sort());
    expect(sessions.map((s) => s.id)).not.toContain(stale.id);
    const again = await pruneExpired(database.sql);
    expect(again.sessions).toBe(0);
    expect(again.rate_limit_counters).toBe(0);
  });
});
