import type { OnTimeout } from '@beckon/contracts/items/policies.contract';
import type { Deps } from '../deps';
import { AppError } from '../errors';
import { JOB_TASKS } from '../job-tasks';
import { type ActionInput, actOnItem } from '../modules/items/operations/act-on-item';

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
  const { item_id } = JOB_TASKS.expire_item.parse(payload);
  const [item] = await deps.sql<{ org_id: string; on_timeout: OnTimeout | null }[]>`
    select org_id, on_timeout from items where id = ${item_id} and status = 'open' and deadline_at <= now()`;
  if (!item) return;
  try {
    await actOnItem(deps, null, item.org_id, item_id, atDeadline(item.on_timeout));
  } catch (error) {
    // Answered or withdrawn meanwhile: nothing to expire.
    if (!(error instanceof AppError && error.status === 409)) throw error;
  }
}
