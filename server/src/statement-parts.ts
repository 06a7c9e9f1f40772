import type { Queryable } from '@beckon/db';
import type postgres from 'postgres';

type Fragment = postgres.PendingQuery<postgres.Row[]>;

/**
 * One part of a statement that several modules contribute to: a named query run as a CTE
 * (`name as (query)`). The query is a SELECT (of the jobs it adds, say) or a data-modifying
 * statement with RETURNING.
 */
export type Part = { name: string; query: Fragment };

export const part = (name: string, query: Fragment): Part => ({ name, query });

/** Fragments joined by commas (at least one). */
export const commaList = (sql: Queryable, fragments: Fragment[]) =>
  fragments.reduce((all, fragment) => sql`${all}, ${fragment}`);

/** The parts as the CTEs of a WITH clause, in order (a later part may read an earlier one). */
export const ctesOf = (sql: Queryable, parts: Part[]) =>
  commaList(
    sql,
    parts.map((p) => sql`${sql(p.name)} as (${p.query})`),
  );

/**
 * One statement of all the parts, which reads every one of them back: PostgreSQL runs a SELECT
 * in WITH only as far as the statement reads it, so a part that was not read would silently
 * never run. Reading them here, by construction, means no part can be left out. `result` is
 * selected first, as `result` (what the caller wants back, if anything).
 */
export function statementOf(sql: Queryable, parts: Part[], result?: Fragment) {
  if (parts.length === 0) throw new Error('a statement needs at least one part');
  const reads = parts.map((p) => sql`(select count(*) from ${sql(p.name)})`);
  return sql`with ${ctesOf(sql, parts)} select ${result ?? sql`null`} as result, ${commaList(sql, reads)}`;
}
