import type { JobHelpers } from 'graphile-worker';
import { uuidv7 } from 'uuidv7';
import type { Deps } from '../deps';
import { AppError } from '../errors';
import { JOB_TASKS } from '../job-tasks';
import { itemMail } from '../mail/item-mail';
import type { Mail, MailResult } from '../mail/mailer';
import { mailRecipient } from '../mail/recipient';
import { findItem } from '../modules/items/rows/item-queries';
import { itemView } from '../modules/items/rows/item-view';

type Delivery = { delivery_id: string; org_id: string; item_id: string | null; event: string };

/**
 * Sends one mail and records the attempt in the delivery log (kind `email`, the address as a
 * `mailto:` URL, the SMTP reply code as the status). A failure another attempt may fix throws, so
 * the queue runs the job again with its own backoff (JOB_MAX_ATTEMPTS in all); a 5xx reply does
 * not.
 */
export async function sendAndRecord(
  deps: Deps,
  delivery: Delivery,
  mail: Mail,
  helpers: JobHelpers,
): Promise<MailResult> {
  const started = performance.now();
  const result = await deps.mailer.deliver(mail);
  await deps.attempts.record({
    id: uuidv7(),
    ...delivery,
    kind: 'email',
    webhook_id: null,
    url: `mailto:${mail.to}`,
    attempt: helpers.job.attempts,
    status_code: result.code,
    error: result.error,
    duration_ms: Math.round(performance.now() - started),
  });
  if (!result.ok && !result.final) throw new Error(`mail not sent: ${result.error}`);
  return result;
}

/**
 * `send_email`: the mail of one item to one person (email-entries.ts adds it in the item's
 * transaction). The person and the item are read now, each within the job's organization: a
 * person who left or turned mail off meanwhile gets nothing, nor does anyone for an item that is
 * no longer open. A job run again after its mail was
 * sent (a crash before completion) sends nothing more.
 */
export async function sendEmail(deps: Deps, payload: unknown, helpers: JobHelpers): Promise<void> {
  const job = JOB_TASKS.send_email.parse(payload);
  if (!deps.mailer.configured) return;
  if (helpers.job.attempts > 1) {
    const sent = await deps.sql`
      select 1 from delivery_attempts
       where org_id = ${job.org_id} and delivery_id = ${job.delivery_id} and error is null`;
    if (sent.length > 0) return;
  }
  const to = await mailRecipient(deps.sql, job.org_id, job.user_id);
  if (!to) return;
  const row = await findItem(deps.sql, { orgId: job.org_id }, job.item_id).catch((error: unknown) => {
    if (error instanceof AppError && error.status === 404) return null;
    throw error;
  });
  // Decided (or withdrawn, expired) before its mail went out: nothing left to tell.
  if (row?.status !== 'open') return;
  const mail = await itemMail(deps, itemView(row), to, job.delivery_id, deps.clock(), job.reason);
  const delivery = {
    delivery_id: job.delivery_id,
    org_id: job.org_id,
    item_id: job.item_id,
    event: `item.${job.reason}`,
  };
  await sendAndRecord(deps, delivery, mail, helpers);
}
