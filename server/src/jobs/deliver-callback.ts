import type { JobHelpers } from 'graphile-worker';
import { ZCallbackJob } from '../delivery/delivery-job';
import type { Deps } from '../deps';
import { alreadyAttempted, attemptDelivery } from './deliver';

/**
 * POSTs an item's outcome to its callback_url, signed with the organization's callback secret
 * (see deliver.ts for attempts, records and retries).
 */
export async function deliverCallback(deps: Deps, payload: unknown, helpers?: JobHelpers): Promise<void> {
  const job = ZCallbackJob.parse(payload);
  if (await alreadyAttempted(deps, job, helpers)) return;
  const secret = await deps.callbackSecrets.get(deps.sql, job.org_id);
  if (!secret) return;
  await attemptDelivery(
    deps,
    job,
    { task: 'deliver_callback', secret, webhookId: null, retry: job },
    helpers?.abortSignal,
  );
}
