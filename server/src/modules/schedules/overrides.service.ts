import type { CreateOverrideInput, OverrideView } from '@beckon/contracts/schedules/schedules.contract';
import type { Queryable } from '@beckon/db';
import { uuidv7 } from 'uuidv7';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';
import { loadSchedule, type OverrideRow } from './schedules.service';

export const overrideView = (row: OverrideRow): OverrideView => ({
  id: row.id,
  schedule_id: row.schedule_id,
  user_id: row.user_id,
  starts_at: row.starts_at.toISOString(),
  ends_at: row.ends_at.toISOString(),
  created_at: row.created_at.toISOString(),
});

export async function listOverrides(deps: Deps, identity: Identity, id: string): Promise<OverrideView[]> {
  const { sql } = deps;
  await loadSchedule(sql, identity.orgId, id);
  const rows = await sql<OverrideRow[]>`
    select id, schedule_id, user_id, starts_at, ends_at, created_at from schedule_overrides
     where org_id = ${identity.orgId} and schedule_id = ${id} order by starts_at, id`;
  return rows.map(overrideView);
}

/** Writes an override (in the caller's transaction). */
export async function insertOverride(
  sql: Queryable,
  orgId: string,
  scheduleId: string,
  userId: string,
  span: { starts_at: string; ends_at: string },
): Promise<OverrideRow> {
  const [saved] = await sql<OverrideRow[]>`
    insert into schedule_overrides (id, org_id, schedule_id, user_id, starts_at, ends_at)
    values (${uuidv7()}, ${orgId}, ${scheduleId}, ${userId}, ${new Date(span.starts_at)}, ${new Date(span.ends_at)})
    returning id, schedule_id, user_id, starts_at, ends_at, created_at`;
  return saved as OverrideRow;
}

export async function createOverride(
  deps: Deps,
  identity: Identity,
  input: CreateOverrideInput,
): Promise<OverrideView> {
  const { sql } = deps;
  await loadSchedule(sql, identity.orgId, input.id);
  const [member] = await sql`
    select 1 from memberships where org_id = ${identity.orgId} and user_id = ${input.user_id}`;
  if (!member) throw AppError.invalid({ user_id: 'unknown user' });
  const row = await sql.begin(async (tx) => {
    const row = await insertOverride(tx, identity.orgId, input.id, input.user_id, input);
    await recordOrgChange(tx, identity, 'schedule.override.create', {
      schedule_id: row.schedule_id,
      override_id: row.id,
      user_id: row.user_id,
      starts_at: row.starts_at.toISOString(),
      ends_at: row.ends_at.toISOString(),
    });
    return row;
  });
  return overrideView(row);
}

export async function deleteOverride(
  deps: Deps,
  identity: Identity,
  input: { id: string; override_id: string },
): Promise<OverrideView> {
  const row = await deps.sql.begin(async (tx) => {
    const [deleted] = await tx<OverrideRow[]>`
      delete from schedule_overrides
       where org_id = ${identity.orgId} and schedule_id = ${input.id} and id = ${input.override_id}
      returning id, schedule_id, user_id, starts_at, ends_at, created_at`;
    if (!deleted) throw AppError.notFound();
    await recordOrgChange(tx, identity, 'schedule.override.delete', {
      schedule_id: deleted.schedule_id,
      override_id: deleted.id,
      user_id: deleted.user_id,
    });
    return deleted;
  });
  return overrideView(row);
}
