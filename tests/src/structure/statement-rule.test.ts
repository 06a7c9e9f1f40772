import { CROSS_ORG_STATEMENTS, TABLE_DISTRIBUTION, unlistedTables, unroutedTables } from '@beckon/db';
import { describe, expect, it } from 'vitest';

/**
 * The query rule (db/src/statement-rule.ts) on statements as pg_stat_statements shows them. The
 * run itself checks every statement the product ran (tests/src/harness/statement-capture.ts);
 * this file pins down what the parse accepts and what it flags.
 */

const ITEM = 'select i.id from items i';

describe('statements that name the organization for each distributed table', () => {
  it.each([
    ['a filter', 'select id from items where org_id = $1 and id = $2'],
    ['a qualified filter', `${ITEM} where i.org_id = $1 and i.id = $2`],
    [
      'drizzle’s quoted, parenthesized form',
      'select "id" from "items" where ("items"."org_id" = $1 and "items"."id" = $2)',
    ],
    ['a cast parameter', 'update items set status = $1 where org_id = $2::uuid and id = $3'],
    [
      'a co-located join',
      'select q.id from push_queue q join devices d on d.org_id = q.org_id and d.id = q.device_id where q.org_id = $1',
    ],
    ['an insert naming org_id', 'insert into delivery_attempts (id, org_id, kind) values ($1, $2, $3)'],
    [
      'an insert with an alias and ON CONFLICT',
      'insert into audit_heads as h (org_id, seq) values ($1, $2) on conflict (org_id) do update set seq = h.seq + $3',
    ],
    [
      'an insert from a filtered select',
      'with e as (insert into push_queue (org_id, device_id) select d.org_id, d.id from devices d where d.org_id = $1 returning id) select count(*) from e',
    ],
    [
      'a correlated sub-select joined on org_id',
      `${ITEM} where i.org_id = $1 and exists (select 1 from comments c where c.org_id = i.org_id and c.item_id = i.id)`,
    ],
    ['organizations by their id', 'select name from organizations where id = $1'],
    [
      'a CTE column',
      'with x as (select $1 as org_id) select w.id from webhooks w, x where w.org_id = x.org_id',
    ],
    ['no distributed table', 'select user_id from sessions where token_hash = $1'],
  ])('accepts %s', (_, statement) => {
    expect(unroutedTables(statement)).toEqual([]);
  });
});

describe('statements that do not', () => {
  it.each([
    ['a lookup by id alone', 'select org_id from items where id = $1', ['items']],
    ['an update by id alone', 'update items set receipt = $1 where id = $2', ['items']],
    ['org_id compared with ANY', 'select id from items where org_id = any($1)', ['items']],
    [
      'a join without org_id',
      'select q.id from push_queue q join devices d on d.id = q.device_id where q.org_id = $1',
      ['devices'],
    ],
    [
      'a sub-select without it (an outer bare org_id does not reach inside)',
      `select id from items where org_id = $1 and channel_id in (select id from channels where name = $2)`,
      ['channels'],
    ],
    [
      'a join on org_id to a table that has none itself',
      'select m.user_id from memberships m join organizations o on o.id = m.org_id where m.user_id = $1',
      ['memberships', 'organizations'],
    ],
    ['org_id only assigned', 'update items set org_id = $1 where id = $2', ['items']],
    ['a sweep by age', 'delete from events where created_at < now() - $1', ['events']],
    ['an insert without org_id', 'insert into comments (id, body) values ($1, $2)', ['comments']],
  ])('flags %s', (_, statement, tables) => {
    expect(unroutedTables(statement)).toEqual(tables);
  });
});

describe('the cross-organization statements (db/src/cross-org-statements.ts)', () => {
  it('each has a source, a reason and distributed tables', () => {
    const distributed = new Set(
      TABLE_DISTRIBUTION.filter((p) => p.class === 'distributed').map((p) => p.table),
    );
    for (const entry of CROSS_ORG_STATEMENTS) {
      expect(entry.reason.length, entry.source).toBeGreaterThan(30);
      expect(
        entry.tables.every((table) => distributed.has(table)),
        entry.source,
      ).toBe(true);
    }
  });

  it('excuse only the tables they list, only in the statements they match', () => {
    const legacy = 'select org_id from items where id = $1';
    expect(unlistedTables(legacy, unroutedTables(legacy))).toEqual([]);
    const other = 'select title from items where id = $1';
    expect(unlistedTables(other, unroutedTables(other))).toEqual(['items']);
    const teams = 'select t.id from teams t join team_members tm on tm.team_id = t.id where tm.user_id = $1';
    expect(unlistedTables(teams, unroutedTables(teams)).sort()).toEqual(['team_members', 'teams']);
    const backfill = 'update team_members tm set org_id = t.org_id from teams t where t.id = tm.team_id';
    expect(unlistedTables(backfill, unroutedTables(backfill))).toEqual([]);
  });
});
