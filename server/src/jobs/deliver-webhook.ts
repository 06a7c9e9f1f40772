import type { JobHelpers } from 'graphile-worker';
import type { z } from 'zod';
import type { DeliveryJob } from '../delivery/delivery-job';
import type { Deps } from '../deps';
import { JOB_TASKS, type ZWebhookFirstAttempt } from '../job-tasks';
import { alreadyAttempted, attemptDelivery } from './deliver';
import { withJobOrg } from './job-org';

/** Enqueued with the change (record-change.ts): the webhook and the stream event to deliver (ZWebhookFirstAttempt). */
type Webhook = { id: string; org_id: string; url: string; secret: string; active: boolean };
type StreamEvent = {
  id: string;
  type: DeliveryJob['event'];
  item_id: string | null;
  data: unknown;
  created_at: Date;
};

/** The first attempt's delivery: the event as `{id, type, created_at, data: {item}}`. */
async function firstDelivery(deps: Deps, hook: Webhook, job: z.infer<typeof ZWebhookFirstAttempt>) {
  const [event] = await deps.sql<StreamEvent[]>`
    select id, type, item_id, data, created_at from events where org_id = ${hook.org_id} and id = ${job.event_id}`;
  if (!event) return null;
  const body = JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: event.created_at.toISOString(),
    data: event.data,
  });
  return { ...job, org_id: hook.org_id, item_id: event.item_id, event: event.type, url: hook.url, body };
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
  const [hook] = await deps.sql<Webhook[]>`
    select id, org_id, url, secret, active from webhooks
     where org_id = ${parsed.org_id} and id = ${parsed.webhook_id}`;
  if (!hook?.active) return;
  const job = 'event_id' in parsed ? await firstDelivery(deps, hook, parsed) : parsed;
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
