import type { Restriction } from '@beckon/contracts/schedules/schedules.contract';
import type { Queryable } from '@beckon/db';
import { withinRestrictions } from './on-call';

/** A person away whose notification went to their delegate (recorded in audit entries as `delegated`). */
export type Delegation = { user_id: string; delegate_id: string };

type Availability = {
  user_id: string;
  away: boolean;
  delegate_id: string | null;
  time_zone: string | null;
  windows: Restriction[] | null;
};

/**
 * Each person's availability at `at`, in order: away (their latest out-of-office period covering
 * it) with its delegate while a member, and their working hours.
 */
function availabilityOf(sql: Queryable, orgId: string, people: string[], at: Date) {
  return sql<Availability[]>`
    select p.user_id, o.user_id is not null as away, o.delegate_id, w.time_zone, w.windows
      from unnest(${people}::uuid[]) with ordinality as p(user_id, n)
      left join lateral (
        select oo.user_id, m.user_id as delegate_id from out_of_office oo
          left join memberships m on m.org_id = oo.org_id and m.user_id = oo.delegate_id
         where oo.org_id = ${orgId} and oo.user_id = p.user_id and oo.starts_at <= ${at} and oo.ends_at > ${at}
         order by oo.created_at desc limit 1) o on true
      left join working_hours w on w.org_id = ${orgId} and w.user_id = p.user_id
     order by p.n`;
}

/**
 * Who hears at `at` of what is for `people`: a person away is replaced by their delegate (none:
 * nobody), a person outside their working hours is left out while someone else is reached.
 */
export async function reachable(
  sql: Queryable,
  orgId: string,
  people: string[],
  at: Date,
): Promise<{ people: string[]; delegated: Delegation[] }> {
  if (people.length === 0) return { people, delegated: [] };
  const delegated: Delegation[] = [];
  const present: string[] = [];
  const offHours: string[] = [];
  for (const person of await availabilityOf(sql, orgId, people, at)) {
    if (person.away) {
      if (person.delegate_id) delegated.push({ user_id: person.user_id, delegate_id: person.delegate_id });
    } else if (
      person.windows &&
      person.time_zone &&
      !withinRestrictions(person.windows, person.time_zone, +at)
    ) {
      offHours.push(person.user_id);
    } else {
      present.push(person.user_id);
    }
  }
  const reached = [...present, ...delegated.map((d) => d.delegate_id)];
  return { people: [...new Set(reached.length > 0 ? reached : offHours)], delegated };
}

/** The delegate of a person away at `at` (null: not away, or away without one). */
export async function delegateOf(
  sql: Queryable,
  orgId: string,
  userId: string,
  at: Date,
): Promise<string | null> {
  const [person] = await availabilityOf(sql, orgId, [userId], at);
  return person?.away ? person.delegate_id : null;
}

/** The people away at `at` who named `userId` their delegate: whom they stand in for. */
export async function delegatorsOf(
  sql: Queryable,
  orgId: string,
  userId: string,
  at: Date,
): Promise<string[]> {
  const rows = await sql<{ user_id: string }[]>`
    select distinct user_id from out_of_office
     where org_id = ${orgId} and delegate_id = ${userId} and starts_at <= ${at} and ends_at > ${at}
     order by user_id`;
  return rows.map((row) => row.user_id);
}
