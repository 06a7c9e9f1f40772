import type { JobHelpers } from 'graphile-worker';
import { ZCallbackJob } from '../delivery/delivery-job';
import type { Deps } from '../deps';
import { alreadyAttempted, attemptDelivery } from './deliver';

/** Organizations' callback secrets, read once a minute at most per organization (a hot path). */
const SECRET_TTL_MS = 60_000;
const secrets = new Map<string, { secret: string; readAt: number }>();

async function callbackSecret(deps: Deps, orgId: string): Promise<string | null> {
  const cached = secrets.get(orgId);
  if (cached && Date.now() - cached.readAt < SECRET_TTL_MS) return cached.secret;
  const [org] = await deps.sql<{ callback_secret: string }[]>`
    select callback_secret from organizations where id = ${orgId}`;
  if (!org) return null;
  if (secrets.size >= 10_000) secrets.clear();
  secrets.set(orgId, { secret: org.callback_secret, readAt: Date.now() });
  return org.callback_secret;
}

/**
 * POSTs an item's outcome to its callback_url, signed with the organization's callback secret
 * (see deliver.ts for attempts, records and retries).
 */
export async function deliverCallback(deps: Deps, payload: unknown, helpers?: JobHelpers): Promise<void> {
  const job = ZCallbackJob.parse(payload);
  if (await alreadyAttempted(deps, job, helpers)) return;
  const secret = await callbackSecret(deps, job.org_id);
  if (!secret) return;
  await attemptDelivery(
    deps,
    job,
    { task: 'deliver_callback', secret, webhookId: null, retry: job },
    helpers?.abortSignal,
  );
}
