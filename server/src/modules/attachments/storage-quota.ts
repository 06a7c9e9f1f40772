import type { Queryable } from '@beckon/db';
import type { Env } from '../../env';
import { AppError } from '../../errors';
import { upgradeUrl } from '../billing/plan-gate';

/** The plan limit key of attachment storage: bytes of files an organization keeps in all. */
export const STORAGE_LIMIT_KEY = 'attachment_storage_bytes';

/**
 * Refuses a file of `size` bytes that would take the organization past its plan's attachment
 * storage (402 plan_limit_exceeded, `current` the bytes in use; a null limit is unlimited). With
 * `lock`, the organization's subscription row is locked first, so concurrent uploads are counted
 * one after the other (call it so in the transaction that inserts the attachment); without, it is
 * the quick check made before the file is stored at all.
 */
export async function enforceStorageQuota(
  sql: Queryable,
  env: Env,
  orgId: string,
  size: number,
  lock: boolean,
): Promise<void> {
  const [plan] = await sql<{ limit: number | null }[]>`
    select p.attachment_storage_bytes::float8 as limit
      from subscriptions s join plans p on p.id = s.plan_id
     where s.org_id = ${orgId}
     ${lock ? sql`for update of s` : sql``}`;
  const limit = plan?.limit ?? null;
  if (limit === null) return;
  const [usage] = await sql<{ used: number }[]>`
    select coalesce(sum(size), 0)::float8 as used from attachments where org_id = ${orgId}`;
  const current = usage?.used ?? 0;
  if (current + size > limit) {
    throw AppError.paymentRequired({ key: STORAGE_LIMIT_KEY, limit, current, upgrade_url: upgradeUrl(env) });
  }
}
