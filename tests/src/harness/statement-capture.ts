import { tmpdir } from 'node:os';
import path from 'node:path';
import { CROSS_ORG_STATEMENTS, normalizeStatement, unlistedTables, unroutedTables } from '@beckon/db';
import postgres from 'postgres';

/**
 * The query rule over the whole run (docs/deployment.md, "Statements and the organization"): the
 * test PostgreSQL keeps statistics of every statement (pg_stat_statements, constants normalized
 * to `$n`), the harness's own queries (factories, assertions) left out; after the last test file,
 * each statement that refers to a distributed table without naming the organization for it, and
 * is not a listed cross-organization statement (db/src/cross-org-statements.ts), fails the run.
 */

/** Server settings of the embedded PostgreSQL: statistics of top-level statements, enough of them. */
export const CAPTURE_SETTINGS: Record<string, string> = {
  shared_preload_libraries: 'pg_stat_statements',
  'pg_stat_statements.max': '20000',
  'pg_stat_statements.track': 'top',
  'pg_stat_statements.track_utility': 'off',
};

/** The statements that broke the rule in the last run, whole (the run's output shortens them). */
export const OFFENCES_FILE = path.join(tmpdir(), 'beckon-statement-offences.txt');

/** Session settings of the harness's own connections: their statements are not the product's. */
export const UNCAPTURED_SESSION = { 'pg_stat_statements.track': 'none' } as const;

/** Starts capturing on `adminUrl`'s server when it has the module loaded; false when it has not. */
export async function startCapture(adminUrl: string): Promise<boolean> {
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const [loaded] = await sql<{ on: boolean }[]>`
      select current_setting('shared_preload_libraries') ~ 'pg_stat_statements' as on`;
    if (!loaded?.on) return false;
    await sql`create extension if not exists pg_stat_statements`;
    await sql`select pg_stat_statements_reset()`;
    return true;
  } finally {
    await sql.end();
  }
}

export type Offence = { statement: string; tables: string[]; calls: number };
export type Capture = {
  /** Distinct statements that refer to a distributed table. */
  distributed: number;
  /** Of those, the ones that leave a table without its organization, all listed. */
  listed: number;
  /** The others, most called first. */
  offences: Offence[];
};

/** The statements captured so far, checked. */
export async function checkCaptured(adminUrl: string): Promise<Capture> {
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ query: string; calls: string }[]>`
      select query, sum(calls)::text as calls from pg_stat_statements
       where toplevel and dbid <> (select oid from pg_database where datname = current_database())
       group by query`;
    const offences = new Map<string, Offence>();
    const found = { distributed: 0, listed: 0 };
    for (const { query, calls } of rows) {
      if (unroutedTables(query, undefined, { all: true }).length > 0) found.distributed += 1;
      const unrouted = unroutedTables(query);
      const tables = unlistedTables(query, unrouted);
      if (unrouted.length > 0 && tables.length === 0) found.listed += 1;
      if (tables.length === 0) continue;
      const statement = normalizeStatement(query);
      const seen = offences.get(statement);
      if (seen) seen.calls += Number(calls);
      else offences.set(statement, { statement, tables, calls: Number(calls) });
    }
    return { ...found, offences: [...offences.values()].sort((a, b) => b.calls - a.calls) };
  } finally {
    await sql.end();
  }
}

export function describeOffences(offences: Offence[], width = 600): string {
  const lines = offences.map(
    ({ statement, tables, calls }) =>
      `- [${tables.join(', ')}] (${calls} calls) ${statement.length > width ? `${statement.slice(0, width)}…` : statement}`,
  );
  return [
    `${offences.length} statement(s) refer to distributed tables without their organization (whole in ${OFFENCES_FILE})`,
    '(add the org_id filter, or list the statement with its reason in db/src/cross-org-statements.ts,',
    `which lists ${CROSS_ORG_STATEMENTS.length} now):`,
    ...lines,
  ].join('\n');
}
