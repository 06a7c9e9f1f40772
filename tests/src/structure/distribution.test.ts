import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Catalog,
  DISTRIBUTION_PENDING,
  distributionViolations,
  outOfOrder,
  sortViolations,
  TABLE_DISTRIBUTION,
  type TablePlacement,
} from '@beckon/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database';
import { readCatalog } from './distribution-catalog';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** Tables of the catalog the placements leave out, and placements naming no table. */
function unplaced(catalog: Catalog, placements: readonly TablePlacement[]) {
  const live = new Set(catalog.tables.map(({ table }) => table));
  const declared = new Set(placements.map(({ table }) => table));
  return {
    unlisted: [...live].filter((table) => !declared.has(table)).sort(),
    missing: [...declared].filter((table) => !live.has(table)).sort(),
    twice: placements.length - declared.size,
  };
}

let database: TestDatabase;
let catalog: Catalog;

beforeAll(async () => {
  database = await createTestDatabase();
  catalog = await readCatalog(database.sql);
});
afterAll(() => database?.drop());

describe('the distribution of the migrated schema (db/src/distribution.ts)', () => {
  it('places every table exactly once, graphile-worker and drizzle included, and no table that is gone', () => {
    expect(catalog.tables.length).toBeGreaterThan(60);
    expect(unplaced(catalog, TABLE_DISTRIBUTION)).toEqual({ unlisted: [], missing: [], twice: 0 });
  });

  it('breaks the rules exactly where the pending list says (a new break and a fixed one both fail)', () => {
    expect(distributionViolations(catalog, TABLE_DISTRIBUTION)).toEqual(sortViolations(DISTRIBUTION_PENDING));
  });

  it('lists each referenced table before the tables that reference it', () => {
    expect(outOfOrder(catalog, TABLE_DISTRIBUTION)).toEqual([]);
  });

  it('keeps docs/deployment.md holding exactly what `pnpm citus:plan` prints', () => {
    const printed = execFileSync(path.join(root, 'node_modules/.bin/tsx'), ['scripts/citus-plan.ts'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(printed).toContain("select create_distributed_table('items', 'org_id'");
    const docs = readFileSync(path.join(root, 'docs/deployment.md'), 'utf8');
    const block = /<!-- citus-plan:start -->\n([\s\S]*?)<!-- citus-plan:end -->/.exec(docs)?.[1];
    expect(block).toBe(printed);
  });
});

/**
 * The rules against tables made to break each of them once, read back from the live catalog, so a
 * rule that stopped finding anything would fail here.
 */
describe('the distribution rules, on tables made to break them', () => {
  const probe: TablePlacement[] = [
    { table: 'probe.orgs', class: 'distributed', column: 'id' },
    { table: 'probe.loc', class: 'local' },
    { table: 'probe.ref', class: 'reference' },
    { table: 'probe.clean', class: 'distributed' },
    { table: 'probe.child', class: 'distributed' },
    { table: 'probe.orphan', class: 'distributed' },
  ];
  let probed: Catalog;

  beforeAll(async () => {
    await database.sql.unsafe(`
      create schema probe;
      create table probe.orgs (id uuid primary key, slug text unique);
      create table probe.loc (id int primary key, org_id uuid references probe.orgs (id));
      create table probe.ref (id int primary key, org_id uuid references probe.orgs (id),
        loc_id int references probe.loc (id));
      create table probe.clean (org_id uuid not null references probe.orgs (id), id int,
        ref_id int references probe.ref (id), primary key (org_id, id));
      create unique index clean_ref_key on probe.clean (org_id, ref_id) where ref_id is not null;
      create table probe.child (id int primary key, org_id uuid references probe.orgs (id),
        clean_org uuid, clean_id int, foreign key (clean_org, clean_id) references probe.clean (org_id, id));
      create unique index child_lower_key on probe.child (lower(clean_org::text), org_id);
      create table probe.orphan (id int, clean_id int);`);
    probed = await readCatalog(database.sql, ['probe']);
  });

  it('finds each rule broken where it was broken, and nothing in the clean table', () => {
    expect(distributionViolations(probed, probe)).toEqual(
      sortViolations([
        { table: 'probe.orgs', rule: 'unique-without-org-id', name: 'orgs_slug_key' },
        { table: 'probe.loc', rule: 'local-foreign-key', name: 'loc_org_id_fkey' },
        { table: 'probe.ref', rule: 'reference-to-distributed', name: 'ref_org_id_fkey' },
        { table: 'probe.ref', rule: 'local-foreign-key', name: 'ref_loc_id_fkey' },
        { table: 'probe.child', rule: 'nullable-org-id', name: 'org_id' },
        { table: 'probe.child', rule: 'primary-key-without-org-id', name: 'child_pkey' },
        { table: 'probe.child', rule: 'foreign-key-without-org-id', name: 'child_clean_org_clean_id_fkey' },
        { table: 'probe.orphan', rule: 'no-org-id', name: 'org_id' },
      ]),
    );
  });

  it('reports a table left out, a table named that does not exist, and a table named twice', () => {
    const placements = [...probe.filter(({ table }) => table !== 'probe.orphan'), probe[0]!];
    placements.push({ table: 'probe.gone', class: 'local' });
    expect(unplaced(probed, placements)).toEqual({
      unlisted: ['probe.orphan'],
      missing: ['probe.gone'],
      twice: 1,
    });
  });

  it('reports a table listed before a table it references', () => {
    const reordered = [probe[3]!, ...probe.filter((_, at) => at !== 3)];
    expect(outOfOrder(probed, reordered)).toEqual([
      'probe.clean.clean_org_id_fkey references probe.orgs, listed later',
      'probe.clean.clean_ref_id_fkey references probe.ref, listed later',
    ]);
  });
});
