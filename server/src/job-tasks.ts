import { z } from 'zod';
import { ZCallbackJob, ZDeliveryJob } from './delivery/delivery-job';

/**
 * Every task of the queue with its payload's schema: the one list of task names. `addJob` (TS and
 * SQL, job-queue.ts) takes only these names and their payloads' keys, graphile-worker's task list
 * is typed by it (GraphileWorker.Tasks below), and each handler parses its payload with its entry.
 */

/** Why an item reaches a person (send_email): created, then assigned, reminded, escalated. */
export const MAIL_REASONS = ['created', 'assigned', 'reminded', 'escalated'] as const;

/**
 * Why a chat message or text is sent: a new item, or a notification of one (assigned, reminder,
 * escalation) that follows an earlier message with a nudge.
 */
const reason = z.enum(MAIL_REASONS).default('created');

/** A webhook delivery's first attempt: the body is built and frozen from the event then. */
export const ZWebhookFirstAttempt = z.object({
  webhook_id: z.uuid(),
  org_id: z.uuid(),
  event_id: z.uuid(),
  delivery_id: z.uuid(),
  attempt: z.literal(1),
});
/** Scheduled by a failed attempt: the delivery as first sent (same body, same bytes). */
export const ZWebhookRetry = ZDeliveryJob.extend({ webhook_id: z.uuid() });

export const JOB_TASKS = {
  deliver_callback: ZCallbackJob,
  deliver_webhook: z.union([ZWebhookRetry, ZWebhookFirstAttempt]),
  deliver_push: z.object({ entry_id: z.uuid(), org_id: z.uuid(), attempt: z.number().int().min(1) }),
  slack_post_item: z.object({
    item_id: z.uuid(),
    org_id: z.uuid(),
    slack_channel_id: z.string(),
    delivery_id: z.uuid(),
    reason,
  }),
  slack_update_item: z.object({
    item_id: z.uuid(),
    org_id: z.uuid(),
    event: z.string(),
    delivery_id: z.uuid(),
  }),
  telegram_post_item: z.object({
    item_id: z.uuid(),
    org_id: z.uuid(),
    chat_id: z.string(),
    delivery_id: z.uuid(),
    reason,
  }),
  telegram_update_item: z.object({
    item_id: z.uuid(),
    org_id: z.uuid(),
    event: z.string(),
    delivery_id: z.uuid(),
  }),
  discord_post_item: z.object({
    item_id: z.uuid(),
    org_id: z.uuid(),
    discord_channel_id: z.string(),
    delivery_id: z.uuid(),
    reason,
  }),
  discord_update_item: z.object({
    item_id: z.uuid(),
    org_id: z.uuid(),
    event: z.string(),
    delivery_id: z.uuid(),
  }),
  teams_post_item: z.object({
    item_id: z.uuid(),
    org_id: z.uuid(),
    conversation_id: z.string(),
    delivery_id: z.uuid(),
    reason,
  }),
  teams_update_item: z.object({
    item_id: z.uuid(),
    org_id: z.uuid(),
    event: z.string(),
    delivery_id: z.uuid(),
  }),
  twilio_send_item: z.object({
    item_id: z.uuid(),
    org_id: z.uuid(),
    user_id: z.uuid(),
    delivery_id: z.uuid(),
    reason,
  }),
  twilio_close_item: z.object({
    item_id: z.uuid(),
    org_id: z.uuid(),
    event: z.string(),
    delivery_id: z.uuid(),
  }),
  expire_item: z.object({ item_id: z.uuid(), org_id: z.uuid() }),
  escalate_item: z.object({ item_id: z.uuid(), org_id: z.uuid(), step: z.number().int().min(0) }),
  /** Notify again until acknowledged (modules/items/changes/repeat-item.ts): `round` already sent. */
  repeat_item: z.object({ item_id: z.uuid(), org_id: z.uuid(), round: z.number().int().min(0) }),
  send_email: z.object({
    delivery_id: z.uuid(),
    org_id: z.uuid(),
    user_id: z.uuid(),
    item_id: z.uuid(),
    reason: z.enum(MAIL_REASONS),
  }),
  send_email_digest: z.object({ org_id: z.uuid(), user_id: z.uuid() }),
  /** The hourly cron (jobs/worker.ts): no payload of its own. */
  prune_expired: z.unknown(),
  /** The hourly retention run (modules/retention/apply-retention.ts): no payload of its own. */
  apply_retention: z.unknown(),
  /** Signed checkpoints of the chains that advanced (modules/audit/audit-checkpoints.ts). */
  audit_checkpoints: z.unknown(),
  /** A closed organization's data, removed in batches (modules/retention/org-deletion.ts). */
  delete_organization: z.object({ org_id: z.uuid() }),
} as const;

export type TaskName = keyof typeof JOB_TASKS;
export type TaskPayload<T extends TaskName> = z.input<(typeof JOB_TASKS)[T]>;

declare global {
  namespace GraphileWorker {
    // graphile-worker's task typing, from the table above.
    interface Tasks extends Readonly<{ [T in TaskName]: TaskPayload<T> }> {}
  }
}
