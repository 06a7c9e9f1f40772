/**
 * Prints the Citus runbook's generated part (docs/deployment.md, between the citus-plan markers):
 * the calls that distribute the schema, from the declared placement of every table
 * (db/src/distribution.ts), and what must change first (db/src/distribution-pending.ts).
 * tests/src/structure/distribution.test.ts checks the docs hold exactly this output.
 */
import {
  citusPlan,
  pendingSummary,
  RULE_DESCRIPTIONS,
  TABLE_DISTRIBUTION,
  type TableClass,
} from '@beckon/db';

const count = (kind: TableClass) => TABLE_DISTRIBUTION.filter((placement) => placement.class === kind).length;

const lines = [
  `Tables: ${count('distributed')} distributed, ${count('reference')} reference, ${count('local')} local.`,
  '',
  '```sql',
  ...citusPlan(),
  '```',
  '',
  '| rule | what breaks it | violations | tables |',
  '| --- | --- | --- | --- |',
  ...pendingSummary().map(
    ({ rule, violations, tables }) =>
      `| \`${rule}\` | ${RULE_DESCRIPTIONS[rule]} | ${violations} | ${tables} |`,
  ),
];
process.stdout.write(`${lines.join('\n')}\n`);
