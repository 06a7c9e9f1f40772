import type { SwapInput, SwapView } from '@beckon/contracts/schedules/swaps.contract';
import type { Queryable } from '@beckon/db';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';
import { insertOverride, overrideView } from './overrides.service';
import { namedShifts } from './shifts.service';

type Span = SwapInput['mine'];

/** Whether `userId` is on call on the schedule for the whole span (one shift covers it). */
async function holds(sql: Queryable, orgId: string, scheduleId: string, userId: string, span: Span) {
  const { shifts } = await namedShifts(
    sql,
    orgId,
    scheduleId,
    Date.parse(span.starts_at),
    Date.parse(span.ends_at),
  );
  return shifts.length === 1 && shifts[0]?.userId === userId;
}

/**
 * Swaps shifts between the caller and another member: two overrides, written with their audit
 * entry in one transaction. Any member may swap their own shifts (no schedule management needed).
 */
export async function swapShifts(deps: Deps, identity: Identity, input: SwapInput): Promise<SwapView> {
  const { sql } = deps;
  const me = identity.userId;
  if (input.with_user_id === me) throw AppError.invalid({ with_user_id: 'must be someone else' });
  const [member] = await sql`
    select 1 from memberships where org_id = ${identity.orgId} and user_id = ${input.with_user_id}`;
  if (!member) throw AppError.invalid({ with_user_id: 'unknown user' });
  const spans: string[] = [];
  if (!(await holds(sql, identity.orgId, input.id, me, input.mine))) spans.push('mine');
  if (!(await holds(sql, identity.orgId, input.id, input.with_user_id, input.theirs))) spans.push('theirs');
  if (spans.length > 0)
    throw AppError.conflict('not_on_call', 'a span is not wholly the person’s shift', { spans });
  const swap = await sql.begin(async (tx) => {
    const given = await insertOverride(tx, identity.orgId, input.id, input.with_user_id, input.mine);
    const taken = await insertOverride(tx, identity.orgId, input.id, me, input.theirs);
    await recordOrgChange(tx, identity, 'schedule.swap', {
      schedule_id: input.id,
      with_user_id: input.with_user_id,
      given_override_id: given.id,
      taken_override_id: taken.id,
    });
    return { given, taken };
  });
  return { given: overrideView(swap.given), taken: overrideView(swap.taken) };
}
