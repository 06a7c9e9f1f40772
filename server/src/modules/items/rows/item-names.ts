import type { Queryable } from '@beckon/db';
import { commaList } from '../../../statement-parts';
import type { ItemRow } from './item-view';

/**
 * Display names of what an item, its comments and its timeline refer to by id: people (their
 * name, else their email address), agents, inbound webhooks (the agent an item created through
 * one names), teams and schedules. Ids are UUIDv7, unique across these tables, so one id names
 * one thing.
 * These are SQL expressions over a row, computed in the statement that reads or changes it: no
 * read path needs another round trip, and a change's answer names what it names.
 */

/**
 * The name of one id, looked up in the organization `org` (an SQL expression of the row); the
 * aliases are unlike any of the queries these expressions go into.
 */
const nameOf = (id: string, org: string) => `coalesce(
    (select coalesce(name_u.name, name_u.email) from users name_u where name_u.id = ${id}),
    (select name_a.name from agents name_a where name_a.id = ${id} and name_a.org_id = ${org}),
    (select name_w.name from inbound_webhooks name_w where name_w.id = ${id} and name_w.org_id = ${org}),
    (select name_t.name from teams name_t where name_t.id = ${id} and name_t.org_id = ${org}),
    (select name_sc.name from schedules name_sc where name_sc.id = ${id} and name_sc.org_id = ${org}))`;

/**
 * `{id: name}` of the ids `ids.id` of the FROM clause that follows it, each in the organization
 * `org` (an SQL expression). The name is written once, and ids without one are dropped after
 * (jsonb_strip_nulls), so each id is looked up once: a FILTER on the name wrote it twice, and
 * PostgreSQL looked every id up twice. An id may come more than once (the id lists below are
 * UNION ALL): a JSON object keeps one key, with the same name. UNION removed repeats with a hash
 * table sized for the estimated rows of every `jsonb_array_elements`, about ten thousand, built
 * for each item read.
 */
const namesOf = (org: string) =>
  `coalesce(jsonb_strip_nulls(jsonb_object_agg(ids.id, ${nameOf('ids.id', org)})), '{}'::jsonb)`;

/** The name of an actor (`actor_type`, `actor_id` columns of audit entries and comments). */
export const actorNameSql = (prefix: string) =>
  `case when ${prefix}actor_type in ('user', 'agent') then ${nameOf(`${prefix}actor_id`, `${prefix}org_id`)} end`;

/**
 * `names` of the item view: `{id: name}` for its creator, answerer, claimer, assignees, each
 * response and each escalation step's targets. `prefix` qualifies the row's columns: its alias
 * (`i.`), or the table (`items.`) in a RETURNING clause.
 */
export const itemNamesSql = (prefix: string) => `(
  select ${namesOf(`${prefix}org_id`)}
    from (select ${prefix}created_by_id
          union all select ${prefix}answered_by_id
          union all select ${prefix}claimed_by_id
          union all select (name_as->>'id')::uuid from jsonb_array_elements(${prefix}assignees) name_as
          union all select (name_r->'by'->>'id')::uuid from jsonb_array_elements(${prefix}responses) name_r
          union all select (name_to->>'id')::uuid
                  from jsonb_array_elements(${prefix}escalation) name_s,
                       jsonb_array_elements(coalesce(name_s->'to', '[]'::jsonb)) name_to) as ids(id)
   where ids.id is not null) as names`;

/** A JSON array of an audit entry's data (an empty one when absent or not an array). */
const dataArray = (data: string, key: string) =>
  `(case jsonb_typeof(${data}->'${key}') when 'array' then ${data}->'${key}' else '[]'::jsonb end)`;

/**
 * `names` of an audit entry (`prefix`: its alias): `{id: name}` for the people its data refers
 * to: those a delegate acted for (`on_behalf_of`), those away and their delegates (`delegated`).
 */
export const auditNamesSql = (prefix: string) => `(
  select ${namesOf(`${prefix}org_id`)}
    from (select name_b::uuid from jsonb_array_elements_text(${dataArray(`${prefix}data`, 'on_behalf_of')}) name_b
          union all select (name_d->>'user_id')::uuid
                  from jsonb_array_elements(${dataArray(`${prefix}data`, 'delegated')}) name_d
          union all select (name_d->>'delegate_id')::uuid
                  from jsonb_array_elements(${dataArray(`${prefix}data`, 'delegated')}) name_d) as ids(id)
   where ids.id is not null)`;

/** The ids an item refers to (what its `names` names), read from its values. */
export function referencedIds(row: ItemRow): string[] {
  const ids = [row.created_by_id, row.answered_by_id, row.claimed_by_id];
  for (const assignee of row.assignees) if ('id' in assignee) ids.push(assignee.id);
  for (const response of row.responses) ids.push(response.by.id);
  for (const step of row.escalation) {
    if (step.action === 'escalate') for (const to of step.to) if ('id' in to) ids.push(to.id);
  }
  return [...new Set(ids.filter((id): id is string => typeof id === 'string'))];
}

/**
 * `names` of an item whose row is not read back (a creation, written from its values): the same
 * lookups over its ids, as a fragment of the statement that writes it. The ids are a VALUES list,
 * not `unnest` of one array parameter: PostgreSQL's generic plan of a prepared statement counts
 * an array parameter as ten elements, which priced the generic plan of a creation far above its
 * custom ones, so the creation was planned again on every execution (about 40 % of its database
 * CPU). A VALUES list is counted exactly, so the generic plan is kept.
 */
export function namesOfIds(sql: Queryable, orgId: string, ids: string[]) {
  if (ids.length === 0) return sql`'{}'::jsonb`;
  const values = commaList(
    sql,
    ids.map((id) => sql`(${id}::uuid)`),
  );
  return sql`(select ${sql.unsafe(namesOf('ids.org'))}
         from (select v.id, ${orgId}::uuid as org from (values ${values}) as v(id)) ids)`;
}
