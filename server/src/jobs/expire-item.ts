import type { OnTimeout } from '@beckon/contracts/items/policies.contract';
import type { Deps } from '../deps';
import { AppError } from '../errors';
import { JOB_TASKS } from '../job-tasks';
import { type ActionInput, actOnItem } from '../modules/items/operations/act-on-item';
import { withJobOrg } from './job-org';

/** What the item's timeout policy does at the deadline (none: expire, by the system). */
function atDeadline(policy: OnTimeout | null): ActionInput {
  switch (policy?.action) {
    case 'answer':
      return { action: 'answer', values: policy.values, byPolicy: true };
    case 'dismiss':
      return { action: 'dismiss', byPolicy: true };
    default:
      return { action: 'expire' };
  }
}

/**
 * Runs at an item's deadline (one job per item, replaced when the deadline moves): an item still
 * open is resolved by its timeout policy (expired by default, or answered or dismissed by the
 * policy), with its audit entry, event and callback. Anything else is left alone.
 */
export async function expireItem(deps: Deps, payload: unknown): Promise<void> {
  const payloadWithOrg = await withJobOrg(deps.sql, 'expire_item', payload);
  if (!payloadWithOrg) return;
  const { item_id, org_id } = JOB_TASKS.expire_item.parse(payloadWithOrg);
  const [item] = await deps.sql<{ on_timeout: OnTimeout | null }[]>`
    select on_timeout from items
     where org_id = ${org_id} and id = ${item_id} and status = 'open' and deadline_at <= now()`;
  if (!item) return;
  try {
    await actOnItem(deps, null, org_id, item_id, atDeadline(item.on_timeout));
  } catch (error) {
    // Answered or withdrawn meanwhile: nothing to expire.
    if (!(error instanceof AppError && error.status === 409)) throw error;
  }
}
