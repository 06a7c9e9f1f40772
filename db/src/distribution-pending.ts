/**
 * The schema's current breaks of the distribution rules (db/src/distribution-rules.ts): what must
 * change before the tables can be distributed. tests/src/structure/distribution.test.ts asserts
 * the live schema breaks exactly these, so a new break fails and a fixed one must leave the list.
 */
export type DistributionRule =
  | 'no-org-id'
  | 'nullable-org-id'
  | 'primary-key-without-org-id'
  | 'unique-without-org-id'
  | 'foreign-key-without-org-id'
  | 'reference-to-distributed'
  | 'local-foreign-key';

/** `name`: the constraint or index, or the missing column. */
export type PendingViolation = { table: string; rule: DistributionRule; name: string };

/** Per rule, `table name` and what fixing it takes. */
const PENDING_BY_RULE: Record<DistributionRule, readonly string[]> = {
  // add the column (and fill it from the parent)
  'no-org-id': [],
  // make the column not null
  'nullable-org-id': [],
  // make the key (org_id, ...)
  'primary-key-without-org-id': [],
  // add org_id to the key, or move a global lookup (a token hash) to the coordinator
  'unique-without-org-id': [],
  // reference (org_id, id), once the parent key includes org_id
  'foreign-key-without-org-id': [],
  // drop the foreign key (system and organization roles kept apart)
  'reference-to-distributed': [],
  // drop the foreign key, or keep the organization check in the code
  'local-foreign-key': [],
};

/** Every rule, in the order the runbook lists them. */
export const DISTRIBUTION_RULES = Object.keys(PENDING_BY_RULE) as DistributionRule[];

export const DISTRIBUTION_PENDING: readonly PendingViolation[] = Object.entries(PENDING_BY_RULE).flatMap(
  ([rule, entries]) =>
    entries.map((entry) => {
      const [table = '', name = ''] = entry.split(' ');
      return { table, rule: rule as DistributionRule, name };
    }),
);
