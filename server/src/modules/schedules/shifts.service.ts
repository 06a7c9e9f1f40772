import type { ShiftView } from '@beckon/contracts/schedules/schedules.contract';
import type { Queryable } from '@beckon/db';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { loadSchedule, overridesBetween, resolveLayers } from './schedules.service';
import { shiftsBetween } from './shifts';

/** A schedule's shifts over [from, to) with someone on call, and its members' names. */
export async function namedShifts(sql: Queryable, orgId: string, id: string, from: number, to: number) {
  const row = await loadSchedule(sql, orgId, id);
  const schedule = await resolveLayers(sql, orgId, row);
  const overrides = await overridesBetween(sql, orgId, id, new Date(from), new Date(to));
  const names = new Map(
    (
      await sql<{ id: string; name: string }[]>`
        select u.id, coalesce(u.name, u.email) as name from users u
          join memberships m on m.user_id = u.id and m.org_id = ${orgId}`
    ).map((u) => [u.id, u.name]),
  );
  const shifts = shiftsBetween(schedule, overrides, from, to).flatMap((s) =>
    s.userId ? [{ ...s, userId: s.userId }] : [],
  );
  return { row, shifts, names };
}

export async function listShifts(
  deps: Deps,
  identity: Identity,
  input: { id: string; from?: string | undefined; days: number },
): Promise<ShiftView[]> {
  const from = input.from ? Date.parse(input.from) : deps.clock().getTime();
  const { shifts, names } = await namedShifts(
    deps.sql,
    identity.orgId,
    input.id,
    from,
    from + input.days * 86_400_000,
  );
  return shifts.map((s) => ({
    user_id: s.userId,
    name: names.get(s.userId) ?? '',
    starts_at: new Date(s.start).toISOString(),
    ends_at: new Date(s.end).toISOString(),
  }));
}
