import { z } from 'zod';
import type { Deps } from '../deps';
import { AppError } from '../errors';
import { actOnItem } from '../modules/items/act-on-item';

const ZExpireJob = z.object({ item_id: z.uuid() });

/**
 * Runs at an item's deadline (one job per item, replaced when the deadline moves): an item still
 * open becomes expired, with its audit entry, event and callback. Anything else is left alone.
 */
export async function expireItem(deps: Deps, payload: unknown): Promise<void> {
  const { item_id } = ZExpireJob.parse(payload);
  const [item] = await deps.sql<{ org_id: string }[]>`
    select org_id from items where id = ${item_id} and status = 'open' and deadline_at <= now()`;
  if (!item) return;
  try {
    await actOnItem(deps, null, item.org_id, item_id, { action: 'expire' });
  } catch (error) {
    // Answered or withdrawn meanwhile: nothing to expire.
    if (!(error instanceof AppError && error.status === 409)) throw error;
  }
}
