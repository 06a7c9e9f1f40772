import type {
  AvailabilityView,
  CreateOutOfOfficeInput,
  OutOfOfficeView,
  WorkingHours,
} from '@beckon/contracts/schedules/availability.contract';
import { uuidv7 } from 'uuidv7';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';

type OutOfOfficeRow = Omit<OutOfOfficeView, 'starts_at' | 'ends_at' | 'created_at'> & {
  starts_at: Date;
  ends_at: Date;
  created_at: Date;
};

const COLUMNS = 'id, user_id, delegate_id, starts_at, ends_at, created_at';

const outOfOfficeView = (row: OutOfOfficeRow): OutOfOfficeView => ({
  ...row,
  starts_at: row.starts_at.toISOString(),
  ends_at: row.ends_at.toISOString(),
  created_at: row.created_at.toISOString(),
});

export async function getAvailability(deps: Deps, identity: Identity): Promise<AvailabilityView> {
  const { sql } = deps;
  const userId = identity.userId;
  const [hours] = await sql<{ time_zone: string; windows: WorkingHours['windows'] }[]>`
    select time_zone, windows from working_hours where org_id = ${identity.orgId} and user_id = ${userId}`;
  const away = await sql<OutOfOfficeRow[]>`
    select ${sql.unsafe(COLUMNS)} from out_of_office
     where org_id = ${identity.orgId} and user_id = ${userId} and ends_at > ${deps.clock()}
     order by starts_at, id`;
  return {
    user_id: userId,
    working_hours: hours ? { time_zone: hours.time_zone, windows: hours.windows } : null,
    out_of_office: away.map(outOfOfficeView),
  };
}

export async function setWorkingHours(
  deps: Deps,
  identity: Identity,
  input: { working_hours: WorkingHours | null },
): Promise<AvailabilityView> {
  const userId = identity.userId;
  const hours = input.working_hours;
  await deps.sql.begin(async (tx) => {
    await (hours
      ? tx`insert into working_hours (org_id, user_id, time_zone, windows)
           values (${identity.orgId}, ${userId}, ${hours.time_zone}, ${tx.json(hours.windows as never)})
           on conflict (org_id, user_id) do update
             set time_zone = excluded.time_zone, windows = excluded.windows, updated_at = now()`
      : tx`delete from working_hours where org_id = ${identity.orgId} and user_id = ${userId}`);
    await recordOrgChange(tx, identity, 'availability.working_hours', {
      user_id: userId,
      working_hours: hours,
    });
  });
  return getAvailability(deps, identity);
}

export async function createOutOfOffice(
  deps: Deps,
  identity: Identity,
  input: CreateOutOfOfficeInput,
): Promise<OutOfOfficeView> {
  const { sql } = deps;
  const userId = identity.userId;
  const delegate = input.delegate_id ?? null;
  if (delegate === userId) throw AppError.invalid({ delegate_id: 'must be someone else' });
  if (delegate) {
    const [member] =
      await sql`select 1 from memberships where org_id = ${identity.orgId} and user_id = ${delegate}`;
    if (!member) throw AppError.invalid({ delegate_id: 'unknown user' });
  }
  const row = await sql.begin(async (tx) => {
    const [saved] = await tx<OutOfOfficeRow[]>`
      insert into out_of_office (id, org_id, user_id, delegate_id, starts_at, ends_at)
      values (${uuidv7()}, ${identity.orgId}, ${userId}, ${delegate}, ${new Date(input.starts_at)},
              ${new Date(input.ends_at)})
      returning ${tx.unsafe(COLUMNS)}`;
    const row = saved as OutOfOfficeRow;
    await recordOrgChange(tx, identity, 'availability.out_of_office.create', {
      out_of_office_id: row.id,
      user_id: userId,
      delegate_id: delegate,
      starts_at: row.starts_at.toISOString(),
      ends_at: row.ends_at.toISOString(),
    });
    return row;
  });
  return outOfOfficeView(row);
}

export async function deleteOutOfOffice(
  deps: Deps,
  identity: Identity,
  id: string,
): Promise<OutOfOfficeView> {
  const userId = identity.userId;
  const row = await deps.sql.begin(async (tx) => {
    const [deleted] = await tx<OutOfOfficeRow[]>`
      delete from out_of_office where org_id = ${identity.orgId} and user_id = ${userId} and id = ${id}
      returning ${tx.unsafe(COLUMNS)}`;
    if (!deleted) throw AppError.notFound();
    await recordOrgChange(tx, identity, 'availability.out_of_office.delete', {
      out_of_office_id: deleted.id,
      user_id: userId,
    });
    return deleted;
  });
  return outOfOfficeView(row);
}
