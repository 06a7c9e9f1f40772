import type { JobHelpers } from 'graphile-worker';
import type { z } from 'zod';
import type { WebhookWithEvent } from '../delivery/webhook-reads';
import type { Deps } from '../deps';
import { JOB_TASKS, type ZWebhookFirstAttempt } from '../job-tasks';
import { alreadyAttempted, attemptDelivery } from './deliver';
import { withJobOrg } from './job-org';

/** The first attempt's delivery: the event as `{id, type, created_at, data: {item}}`. */
function firstDelivery(hook: WebhookWithEvent, job: z.infer<typeof ZWebhookFirstAttempt>) {
  if (!hook.event_id) return null;
  const body = JSON.stringify({
    id: hook.event_id,
    type: hook.type,
    created_at: hook.created_at.toISOString(),
    data: hook.data,
  });
  return { ...job, org_id: hook.org_id, item_id: hook.item_id, event: hook.type, url: hook.url, body };
}

/**
 * Delivers one item event to an outbound webhook subscribed to it, signed with the webhook's
 * secret (see deliver.ts for attempts, records and retries). A webhook deleted or disabled
 * meanwhile gets nothing more; a 410 Gone disables it.
 */
export async function deliverWebhook(deps: Deps, payload: unknown, helpers?: JobHelpers): Promise<void> {
  const payloadWithOrg = await withJobOrg(deps.sql, 'deliver_webhook', payload);
  if (!payloadWithOrg) return;
  const parsed = JOB_TASKS.deliver_webhook.parse(payloadWithOrg);
  const eventId = 'event_id' in parsed ? parsed.event_id : null;
  const hook = await deps.webhookReads.read(parsed.org_id, parsed.webhook_id, eventId);
  if (!hook?.active) return;
  const job = 'event_id' in parsed ? firstDelivery(hook, parsed) : parsed;
  if (!job || (await alreadyAttempted(deps, job, helpers))) return;
  const result = await attemptDelivery(
    deps,
    job,
    {
      task: 'deliver_webhook',
      secret: hook.secret,
      webhookId: hook.id,
      retry: { ...job, webhook_id: hook.id },
    },
    helpers?.abortSignal,
  );
  if (result.status === 410) {
    await deps.sql`update webhooks set active = false, updated_at = now(),
                          disabled_reason = ${`the receiver answered 410 Gone (${new Date().toISOString()})`}
                    where org_id = ${hook.org_id} and id = ${hook.id}`;
  }
}
