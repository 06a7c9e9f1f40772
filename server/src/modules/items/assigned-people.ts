import type { Queryable } from '@beckon/db';
import type { ItemRow } from './item-view';

/**
 * The members an item is assigned to, as a `select user_id` of its organization: the users it
 * names, the members of its teams, the holders of its roles. Each channel that reaches people
 * directly (a Slack DM, a phone) sends to those of them it can reach.
 */
export const assignedPeople = (sql: Queryable, row: Pick<ItemRow, 'org_id' | 'assignee_keys'>) => {
  const keys = row.assignee_keys;
  return sql`select m.user_id from memberships m join roles ro on ro.id = m.role_id
     where m.org_id = ${row.org_id}
       and ('user:' || m.user_id::text = any(${keys}::text[])
            or 'role:' || ro.name = any(${keys}::text[])
            or exists (select 1 from team_members tm join teams t on t.id = tm.team_id
                        where t.org_id = ${row.org_id} and tm.user_id = m.user_id
                          and 'team:' || tm.team_id::text = any(${keys}::text[])))`;
};
