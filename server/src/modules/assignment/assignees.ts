import {
  type Assignee,
  assigneeKey,
  type Escalation,
} from '@beckon/contracts/assignment/assignment.contract';
import type { Queryable } from '@beckon/db';
import { AppError } from '../../errors';

/**
 * The assignees of a request that are not of the organization, as the request's field paths:
 * a user who is not a member, a team of another organization (or none), a role name that is
 * neither a system role nor one of the organization's.
 */
async function unknownAssignees(sql: Queryable, orgId: string, lists: [string, Assignee[]][]) {
  const all = lists.flatMap(([, list]) => list);
  if (all.length === 0) return {};
  const ids = (type: 'user' | 'team') => all.flatMap((a) => (a.type === type ? [a.id] : []));
  const roles = all.flatMap((a) => (a.type === 'role' ? [a.name] : []));
  const known = await sql<{ key: string }[]>`
    select 'user:' || user_id::text as key from memberships where org_id = ${orgId} and user_id = any(${ids('user')}::uuid[])
    union all
    select 'team:' || id::text from teams where org_id = ${orgId} and id = any(${ids('team')}::uuid[])
    union all
    select 'role:' || name from roles where (org_id = ${orgId} or org_id is null) and name = any(${roles}::text[])`;
  const keys = new Set(known.map((row) => row.key));
  const fields: Record<string, string> = {};
  for (const [path, list] of lists) {
    list.forEach((assignee, i) => {
      if (!keys.has(assigneeKey(assignee))) fields[`${path}.${i}`] = `unknown ${assignee.type}`;
    });
  }
  return fields;
}

/** 400 naming each assignee (of the list, and of each escalation step) that is not of the organization. */
export async function checkAssignment(
  sql: Queryable,
  orgId: string,
  given: { assignees?: Assignee[]; escalation?: Escalation },
  prefix = '',
) {
  const lists: [string, Assignee[]][] = [];
  if (given.assignees) lists.push([`${prefix}assignees`, given.assignees]);
  given.escalation?.forEach((step, i) => {
    if (step.action === 'escalate') lists.push([`${prefix}escalation.${i}.to`, step.to]);
  });
  const fields = await unknownAssignees(sql, orgId, lists);
  if (Object.keys(fields).length > 0) throw AppError.invalid(fields);
}

/** `a` with the assignees of `b` it lacks, in order. */
export function withAssignees(a: Assignee[], b: Assignee[]): Assignee[] {
  const keys = new Set(a.map(assigneeKey));
  return [...a, ...b.filter((assignee) => !keys.has(assigneeKey(assignee)))];
}

/**
 * The people behind assignees: members named, members of the teams, members holding the roles.
 * Only current members of the organization (a team member who left is no one).
 */
export async function peopleOf(sql: Queryable, orgId: string, assignees: Assignee[]): Promise<string[]> {
  if (assignees.length === 0) return [];
  const ids = (type: 'user' | 'team') => assignees.flatMap((a) => (a.type === type ? [a.id] : []));
  const roles = assignees.flatMap((a) => (a.type === 'role' ? [a.name] : []));
  const rows = await sql<{ user_id: string }[]>`
    select m.user_id from memberships m join roles r on r.id = m.role_id
     where m.org_id = ${orgId}
       and (m.user_id = any(${ids('user')}::uuid[])
            or r.name = any(${roles}::text[])
            or exists (select 1 from team_members tm join teams t on t.id = tm.team_id
                        where t.org_id = ${orgId} and tm.team_id = any(${ids('team')}::uuid[])
                          and tm.user_id = m.user_id))
     order by m.user_id`;
  return rows.map((row) => row.user_id);
}

/** The assignee keys a caller answers to (user, teams, role): what "assigned to me" matches. */
export async function keysOfCaller(sql: Queryable, orgId: string, userId: string): Promise<string[]> {
  const rows = await sql<{ key: string }[]>`
    select 'user:' || ${userId}::text as key
    union all
    select 'team:' || tm.team_id::text from team_members tm join teams t on t.id = tm.team_id
     where t.org_id = ${orgId} and tm.user_id = ${userId}
    union all
    select 'role:' || r.name from memberships m join roles r on r.id = m.role_id
     where m.org_id = ${orgId} and m.user_id = ${userId}`;
  return rows.map((row) => row.key);
}

/**
 * The assignment of a new item: its assignees and escalation policy, checked against the
 * organization; without a policy of its own (nor its template's), its channel's.
 */
export async function newAssignment(
  sql: Queryable,
  orgId: string,
  fields: { assignees?: Assignee[]; escalation?: Escalation },
  channelDefault: Escalation | undefined,
) {
  await checkAssignment(sql, orgId, fields);
  const assignees = fields.assignees ?? [];
  const escalation = fields.escalation ?? channelDefault ?? [];
  return { assignees, assignee_keys: assignees.map(assigneeKey), escalation };
}
