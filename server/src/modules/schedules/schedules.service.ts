import type {
  CreateScheduleInput,
  Layer,
  OnCallView,
  ReplaceScheduleInput,
  ScheduleView,
} from '@beckon/contracts/schedules/schedules.contract';
import type { Queryable } from '@beckon/db';
import { uuidv7 } from 'uuidv7';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';
import { type OnCallAnswer, type Override, onCallAt, type ResolvedSchedule } from './on-call';

export type ScheduleRow = {
  id: string;
  name: string;
  description: string;
  time_zone: string;
  layers: Layer[];
  created_at: Date;
  updated_at: Date;
};
export type OverrideRow = {
  id: string;
  schedule_id: string;
  user_id: string;
  starts_at: Date;
  ends_at: Date;
  created_at: Date;
};

const scheduleView = (row: ScheduleRow): ScheduleView => ({
  id: row.id,
  name: row.name,
  description: row.description,
  time_zone: row.time_zone,
  layers: row.layers,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

const SCHEDULE_COLUMNS = 'id, name, description, time_zone, layers, created_at, updated_at';

/** 400 naming each layer member that is not a member (user) or a team of the organization. */
async function checkMembers(sql: Queryable, orgId: string, layers: Layer[]) {
  const members = layers.flatMap((layer) => layer.members);
  const ids = (type: 'user' | 'team') => members.flatMap((m) => (m.type === type ? [m.id] : []));
  const known = await sql<{ key: string }[]>`
    select 'user:' || user_id::text as key from memberships where org_id = ${orgId} and user_id = any(${ids('user')}::uuid[])
    union all
    select 'team:' || id::text from teams where org_id = ${orgId} and id = any(${ids('team')}::uuid[])`;
  const keys = new Set(known.map((row) => row.key));
  const fields: Record<string, string> = {};
  layers.forEach((layer, i) => {
    layer.members.forEach((member, j) => {
      if (!keys.has(`${member.type}:${member.id}`))
        fields[`layers.${i}.members.${j}`] = `unknown ${member.type}`;
    });
  });
  if (Object.keys(fields).length > 0) throw AppError.invalid(fields);
}

export async function loadSchedule(sql: Queryable, orgId: string, id: string): Promise<ScheduleRow> {
  const [row] = await sql<ScheduleRow[]>`
    select ${sql.unsafe(SCHEDULE_COLUMNS)} from schedules where org_id = ${orgId} and id = ${id}`;
  if (!row) throw AppError.notFound();
  return row;
}

export async function listSchedules(deps: Deps, identity: Identity): Promise<ScheduleView[]> {
  const { sql } = deps;
  const rows = await sql<ScheduleRow[]>`
    select ${sql.unsafe(SCHEDULE_COLUMNS)} from schedules where org_id = ${identity.orgId} order by name collate "C"`;
  return rows.map(scheduleView);
}

export async function getSchedule(deps: Deps, identity: Identity, id: string): Promise<ScheduleView> {
  return scheduleView(await loadSchedule(deps.sql, identity.orgId, id));
}

const nameTaken = () => AppError.conflict('name_taken', 'a schedule with this name exists');

export async function createSchedule(
  deps: Deps,
  identity: Identity,
  input: CreateScheduleInput,
): Promise<ScheduleView> {
  const { sql } = deps;
  await checkMembers(sql, identity.orgId, input.layers);
  const row = await sql.begin(async (tx) => {
    const [saved] = await tx<ScheduleRow[]>`
      insert into schedules (id, org_id, name, description, time_zone, layers)
      values (${uuidv7()}, ${identity.orgId}, ${input.name}, ${input.description ?? ''}, ${input.time_zone},
              ${tx.json(input.layers as never)})
      on conflict (org_id, name) do nothing
      returning ${tx.unsafe(SCHEDULE_COLUMNS)}`;
    if (!saved) throw nameTaken();
    await recordOrgChange(tx, identity, 'schedule.create', { schedule_id: saved.id, name: saved.name });
    return saved;
  });
  return scheduleView(row);
}

export async function replaceSchedule(
  deps: Deps,
  identity: Identity,
  input: ReplaceScheduleInput,
): Promise<ScheduleView> {
  const { sql } = deps;
  await loadSchedule(sql, identity.orgId, input.id);
  await checkMembers(sql, identity.orgId, input.layers);
  const row = await sql.begin(async (tx) => {
    const [clash] = await tx`
      select 1 from schedules where org_id = ${identity.orgId} and name = ${input.name} and id <> ${input.id}`;
    if (clash) throw nameTaken();
    const [saved] = await tx<ScheduleRow[]>`
      update schedules set name = ${input.name}, description = ${input.description ?? ''},
             time_zone = ${input.time_zone}, layers = ${tx.json(input.layers as never)}, updated_at = now()
       where org_id = ${identity.orgId} and id = ${input.id}
      returning ${tx.unsafe(SCHEDULE_COLUMNS)}`;
    if (!saved) throw AppError.notFound();
    await recordOrgChange(tx, identity, 'schedule.update', { schedule_id: saved.id, name: saved.name });
    return saved;
  });
  return scheduleView(row);
}

export async function deleteSchedule(deps: Deps, identity: Identity, id: string): Promise<ScheduleView> {
  const row = await deps.sql.begin(async (tx) => {
    const [deleted] = await tx<ScheduleRow[]>`
      delete from schedules where org_id = ${identity.orgId} and id = ${id}
      returning ${tx.unsafe(SCHEDULE_COLUMNS)}`;
    if (!deleted) throw AppError.notFound();
    await recordOrgChange(tx, identity, 'schedule.delete', { schedule_id: deleted.id, name: deleted.name });
    return deleted;
  });
  return scheduleView(row);
}

/**
 * The schedule with each layer's members resolved to the people taking turns: a user while a
 * member, a team as its current members (in the order they joined it).
 */
export async function resolveLayers(
  sql: Queryable,
  orgId: string,
  row: ScheduleRow,
): Promise<ResolvedSchedule> {
  const teamIds = row.layers.flatMap((layer) =>
    layer.members.flatMap((m) => (m.type === 'team' ? [m.id] : [])),
  );
  const rows = await sql<{ team_id: string | null; user_id: string }[]>`
    select null::uuid as team_id, user_id, null::timestamptz as joined from memberships where org_id = ${orgId}
    union all
    select tm.team_id, tm.user_id, tm.created_at from team_members tm
      join memberships m on m.user_id = tm.user_id and m.org_id = ${orgId}
     where tm.org_id = ${orgId} and tm.team_id = any(${teamIds}::uuid[])
    order by 1 nulls first, 3, 2`;
  const members = new Set(rows.filter((r) => r.team_id === null).map((r) => r.user_id));
  const teams = new Map<string, string[]>();
  for (const r of rows) {
    if (r.team_id) teams.set(r.team_id, [...(teams.get(r.team_id) ?? []), r.user_id]);
  }
  return {
    timeZone: row.time_zone,
    layers: row.layers.map((layer) => ({
      ...layer,
      users: layer.members.flatMap((m) =>
        m.type === 'user' ? (members.has(m.id) ? [m.id] : []) : (teams.get(m.id) ?? []),
      ),
    })),
  };
}

/** The schedule's overrides over a period, of people still members. */
export async function overridesBetween(
  sql: Queryable,
  orgId: string,
  scheduleId: string,
  from: Date,
  to: Date,
) {
  const rows = await sql<OverrideRow[]>`
    select o.id, o.schedule_id, o.user_id, o.starts_at, o.ends_at, o.created_at from schedule_overrides o
      join memberships m on m.user_id = o.user_id and m.org_id = o.org_id
     where o.org_id = ${orgId} and o.schedule_id = ${scheduleId} and o.starts_at < ${to} and o.ends_at > ${from}`;
  return rows.map(
    (r): Override => ({
      id: r.id,
      userId: r.user_id,
      startsAt: r.starts_at.getTime(),
      endsAt: r.ends_at.getTime(),
      createdAt: r.created_at.getTime(),
    }),
  );
}

/** Who is on call on one of the organization's schedules at `at` (null: not one of its schedules). */
export async function resolveOnCall(
  sql: Queryable,
  orgId: string,
  scheduleId: string,
  at: Date,
): Promise<OnCallAnswer | null> {
  const [row] = await sql<ScheduleRow[]>`
    select ${sql.unsafe(SCHEDULE_COLUMNS)} from schedules where org_id = ${orgId} and id = ${scheduleId}`;
  if (!row) return null;
  const schedule = await resolveLayers(sql, orgId, row);
  const overrides = await overridesBetween(sql, orgId, scheduleId, at, new Date(at.getTime() + 1));
  return onCallAt(schedule, overrides, at.getTime());
}

export async function getOnCall(
  deps: Deps,
  identity: Identity,
  input: { id: string; at?: string | undefined },
): Promise<OnCallView> {
  const at = input.at ? new Date(input.at) : deps.clock();
  const answer = await resolveOnCall(deps.sql, identity.orgId, input.id, at);
  if (!answer) throw AppError.notFound();
  return {
    schedule_id: input.id,
    at: at.toISOString(),
    user_id: answer.userId,
    source: answer.source,
    layer: answer.layer,
    override_id: answer.overrideId,
  };
}
