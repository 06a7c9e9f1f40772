/**
 * The rules a schema must follow to be distributed by organization (Citus), checked against a
 * catalog read from PostgreSQL (tests/src/structure/distribution-catalog.ts).
 */

import { distributionColumn, type TablePlacement } from './distribution';
import type { DistributionRule, PendingViolation } from './distribution-pending';

export type CatalogTable = { table: string; columns: { name: string; notNull: boolean }[] };
/** A unique index (primary keys and unique constraints included); null for an expression. */
export type CatalogUniqueIndex = {
  table: string;
  name: string;
  primary: boolean;
  columns: (string | null)[];
};
export type CatalogForeignKey = {
  table: string;
  name: string;
  columns: string[];
  references: string;
  referencedColumns: string[];
};
export type Catalog = {
  tables: CatalogTable[];
  uniqueIndexes: CatalogUniqueIndex[];
  foreignKeys: CatalogForeignKey[];
};

/** What each rule asks, for the runbook. */
export const RULE_DESCRIPTIONS: Record<DistributionRule, string> = {
  'no-org-id': 'a distributed table has no `org_id` column',
  'nullable-org-id': "a distributed table's `org_id` may be null",
  'primary-key-without-org-id': "a distributed table's primary key does not include `org_id`",
  'unique-without-org-id': "a distributed table's unique constraint or index does not include `org_id`",
  'foreign-key-without-org-id':
    'a foreign key between two distributed tables does not pair `org_id` with `org_id`',
  'reference-to-distributed': 'a reference table references a distributed table',
  'local-foreign-key':
    'a foreign key between a local table and a distributed one, or from a reference table to a local one',
};

/** Every violation of the rules in `catalog`, given where each table is placed. */
export function distributionViolations(
  catalog: Catalog,
  placements: readonly TablePlacement[],
): PendingViolation[] {
  const placed = new Map(placements.map((placement) => [placement.table, placement]));
  const found: PendingViolation[] = [];
  const add = (table: string, rule: DistributionRule, name: string) => found.push({ table, rule, name });
  const distributedColumn = (table: string): string | undefined => {
    const placement = placed.get(table);
    return placement?.class === 'distributed' ? distributionColumn(placement) : undefined;
  };

  for (const { table, columns } of catalog.tables) {
    const column = distributedColumn(table);
    if (!column) continue;
    const present = columns.find(({ name }) => name === column);
    if (!present) add(table, 'no-org-id', column);
    else if (!present.notNull) add(table, 'nullable-org-id', column);
  }
  for (const index of catalog.uniqueIndexes) {
    const column = distributedColumn(index.table);
    if (!column || index.columns.includes(column)) continue;
    add(index.table, index.primary ? 'primary-key-without-org-id' : 'unique-without-org-id', index.name);
  }
  for (const key of catalog.foreignKeys) {
    const from = placed.get(key.table)?.class;
    const to = placed.get(key.references)?.class;
    if (from === 'distributed' && to === 'distributed') {
      const fromColumn = distributedColumn(key.table);
      const toColumn = distributedColumn(key.references);
      const paired = key.columns.some(
        (column, at) => column === fromColumn && key.referencedColumns[at] === toColumn,
      );
      if (!paired) add(key.table, 'foreign-key-without-org-id', key.name);
    } else if (from === 'reference' && to === 'distributed') {
      add(key.table, 'reference-to-distributed', key.name);
    } else if (
      (from === 'local' && to === 'distributed') ||
      ((from === 'distributed' || from === 'reference') && to === 'local')
    ) {
      add(key.table, 'local-foreign-key', key.name);
    }
  }
  return sortViolations(found);
}

const violationKey = ({ table, rule, name }: PendingViolation) => `${table} ${rule} ${name}`;

export function sortViolations(violations: readonly PendingViolation[]): PendingViolation[] {
  return [...violations].sort((a, b) => violationKey(a).localeCompare(violationKey(b)));
}

/**
 * Foreign keys the declared order breaks: between two tables that Citus converts (distributed or
 * reference), the referenced one must come first.
 */
export function outOfOrder(catalog: Catalog, placements: readonly TablePlacement[]): string[] {
  const position = new Map(placements.map((placement, at) => [placement.table, at]));
  const classOf = new Map(placements.map((placement) => [placement.table, placement.class]));
  const ordered = ({ table, references }: CatalogForeignKey) => {
    const from = classOf.get(table);
    const to = classOf.get(references);
    // a reference table referencing a distributed one breaks a rule of its own
    return table !== references && (from === 'distributed' || (from === 'reference' && to === 'reference'));
  };
  return catalog.foreignKeys
    .filter(ordered)
    .filter(
      ({ references }) =>
        classOf.get(references) === 'distributed' || classOf.get(references) === 'reference',
    )
    .filter(({ table, references }) => (position.get(references) ?? 0) > (position.get(table) ?? 0))
    .map(({ table, name, references }) => `${table}.${name} references ${references}, listed later`)
    .sort();
}
