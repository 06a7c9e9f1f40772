import {
  type Assignee,
  assigneeKey,
  type Escalation,
} from '@beckon/contracts/assignment/assignment.contract';
import { policyAssignment } from '@beckon/contracts/schedules/escalation-policies.contract';
import type { Queryable } from '@beckon/db';
import { AppError } from '../../errors';
import { delegateOf, delegatorsOf } from '../schedules/availability';
import { findPolicy } from '../schedules/escalation-policies.service';
import { resolveOnCall } from '../schedules/schedules.service';

/** Where an item's escalation comes from: inline steps, or a named policy. */
type EscalationChoice = {
  escalation?: Escalation | undefined;
  escalation_policy_id?: string | null | undefined;
};

/**
 * The assignees of a request that are not of the organization, as the request's field paths:
 * a user who is not a member, a team of another organization (or none), a role name that is
 * neither a system role nor one of the organization's.
 */
async function unknownAssignees(
  sql: Queryable,
  orgId: string,
  lists: [string, Assignee[]][],
): Promise<Record<string, string>> {
  const all = lists.flatMap(([, list]) => list);
  if (all.length === 0) return {};
  const ids = (type: 'user' | 'team' | 'schedule') => all.flatMap((a) => (a.type === type ? [a.id] : []));
  const roles = all.flatMap((a) => (a.type === 'role' ? [a.name] : []));
  const known = await sql<{ key: string }[]>`
    select 'user:' || user_id::text as key from memberships where org_id = ${orgId} and user_id = any(${ids('user')}::uuid[])
    union all
    select 'team:' || id::text from teams where org_id = ${orgId} and id = any(${ids('team')}::uuid[])
    union all
    select 'schedule:' || id::text from schedules where org_id = ${orgId} and id = any(${ids('schedule')}::uuid[])
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

/**
 * 400 naming each assignee (of the list, and of each escalation step) that is not of the
 * organization, a named escalation policy that is not one of its own, or both kinds of escalation.
 */
export async function checkAssignment(
  sql: Queryable,
  orgId: string,
  given: { assignees?: Assignee[] | undefined } & EscalationChoice,
  prefix = '',
) {
  const lists: [string, Assignee[]][] = [];
  if (given.assignees) lists.push([`${prefix}assignees`, given.assignees]);
  given.escalation?.forEach((step, i) => {
    if (step.action === 'escalate') lists.push([`${prefix}escalation.${i}.to`, step.to]);
  });
  const fields = await unknownAssignees(sql, orgId, lists);
  const policyField = `${prefix}escalation_policy_id`;
  if (given.escalation !== undefined && given.escalation_policy_id)
    fields[policyField] = 'give escalation or escalation_policy_id, not both';
  else if (given.escalation_policy_id && !(await findPolicy(sql, orgId, given.escalation_policy_id)))
    fields[policyField] = 'unknown escalation policy';
  if (Object.keys(fields).length > 0) throw AppError.invalid(fields);
}

/** `a` with the assignees of `b` it lacks, in order. */
export function withAssignees(a: Assignee[], b: Assignee[]): Assignee[] {
  const keys = new Set(a.map(assigneeKey));
  return [...a, ...b.filter((assignee) => !keys.has(assigneeKey(assignee)))];
}

/**
 * Who was on call on a schedule when it was resolved (recorded in audit entries as `on_call`):
 * the delegate of the person on call while they are away, `on_behalf_of` them.
 */
export type OnCallResolution = { schedule_id: string; user_id: string; on_behalf_of?: string };

/**
 * The assignees with the person on call at `at` on each of their schedules added as a user
 * (a schedule with nobody on call adds no one), and who that was.
 */
export async function withOnCall(
  sql: Queryable,
  orgId: string,
  assignees: Assignee[],
  at: Date,
): Promise<{ assignees: Assignee[]; onCall: OnCallResolution[] }> {
  const onCall: OnCallResolution[] = [];
  for (const assignee of assignees) {
    if (assignee.type !== 'schedule') continue;
    const answer = await resolveOnCall(sql, orgId, assignee.id, at);
    if (!answer?.userId) continue;
    const delegate = await delegateOf(sql, orgId, answer.userId, at);
    onCall.push(
      delegate
        ? { schedule_id: assignee.id, user_id: delegate, on_behalf_of: answer.userId }
        : { schedule_id: assignee.id, user_id: answer.userId },
    );
  }
  const people = onCall.map((o): Assignee => ({ type: 'user', id: o.user_id }));
  return { assignees: withAssignees(assignees, people), onCall };
}

/** `{on_call}` for an audit entry's data when schedules were resolved, else nothing. */
export const onCallAuditData = (onCall: OnCallResolution[]) => (onCall.length > 0 ? { on_call: onCall } : {});

/**
 * The people away at `at` whom `userId` stands in for on an item: those who named them their
 * delegate and are among the people behind its assignees (recorded as `on_behalf_of`).
 */
export async function onBehalfOf(
  sql: Queryable,
  orgId: string,
  userId: string,
  assignees: Assignee[],
  at: Date,
): Promise<string[]> {
  const delegators = await delegatorsOf(sql, orgId, userId, at);
  if (delegators.length === 0) return [];
  const people = await peopleOf(sql, orgId, assignees);
  return delegators.filter((person) => people.includes(person));
}

/**
 * The people behind assignees: members named, members of the teams, members holding the roles
 * (a schedule's person is among them as a user: withOnCall). Only current members of the
 * organization (a team member who left is no one).
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
            or exists (select 1 from team_members tm
                        where tm.org_id = ${orgId} and tm.team_id = any(${ids('team')}::uuid[])
                          and tm.user_id = m.user_id))
     order by m.user_id`;
  return rows.map((row) => row.user_id);
}

/** The assignee keys a caller answers to (user, teams, role): what "assigned to me" matches. */
export async function keysOfCaller(sql: Queryable, orgId: string, userId: string): Promise<string[]> {
  const rows = await sql<{ key: string }[]>`
    select 'user:' || ${userId}::text as key
    union all
    select 'team:' || tm.team_id::text from team_members tm
     where tm.org_id = ${orgId} and tm.user_id = ${userId}
    union all
    select 'role:' || r.name from memberships m join roles r on r.id = m.role_id
     where m.org_id = ${orgId} and m.user_id = ${userId}`;
  return rows.map((row) => row.key);
}

/** A named policy as assignment (its first targets, its steps); unknown or foreign: 400 on `field`. */
async function policyOf(sql: Queryable, orgId: string, id: string, field: string) {
  const policy = await findPolicy(sql, orgId, id);
  if (!policy) throw AppError.invalid({ [field]: 'unknown escalation policy' });
  return { id, ...policyAssignment(policy) };
}

/**
 * The escalation of a new item: its own (inline steps or a named policy), else its channel's;
 * a named policy's first level joins the assignees.
 */
async function escalationOf(sql: Queryable, orgId: string, own: EscalationChoice, channel: EscalationChoice) {
  const policyId =
    own.escalation === undefined ? (own.escalation_policy_id ?? channel.escalation_policy_id) : null;
  if (policyId) {
    const policy = await policyOf(sql, orgId, policyId, 'escalation_policy_id');
    return { escalation: policy.steps, policyId, first: policy.first };
  }
  return { escalation: own.escalation ?? channel.escalation ?? [], policyId: null, first: [] };
}

/**
 * The assignment of a new item: its assignees (with whoever is on call on their schedules at
 * `at`) and escalation policy, checked against the organization; without a policy of its own (nor
 * its template's), its channel's.
 */
export async function newAssignment(
  sql: Queryable,
  orgId: string,
  fields: { assignees?: Assignee[] } & EscalationChoice,
  channelDefault: EscalationChoice | null,
  at: Date,
) {
  await checkAssignment(sql, orgId, fields);
  const chosen = await escalationOf(sql, orgId, fields, channelDefault ?? {});
  const given = withAssignees(fields.assignees ?? [], chosen.first);
  const { assignees, onCall } = await withOnCall(sql, orgId, given, at);
  return {
    assignment: {
      assignees,
      assignee_keys: assignees.map(assigneeKey),
      escalation: chosen.escalation,
      escalation_policy_id: chosen.policyId,
    },
    onCall,
  };
}
