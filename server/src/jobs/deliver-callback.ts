import type { JobHelpers } from 'graphile-worker';
import { z } from 'zod';
import { attemptRecorder } from '../delivery/attempts';
import { postJson } from '../delivery/outbound';
import { signDelivery } from '../delivery/sign';
import type { Deps } from '../deps';
import { addJob, EVENT_KINDS } from '../modules/items/item-changes';

export const ZCallbackJob = z.object({
  delivery_id: z.uuid(),
  org_id: z.uuid(),
  item_id: z.uuid(),
  event: z.enum(EVENT_KINDS),
  url: z.string(),
  body: z.string(),
  attempt: z.number().int().min(1),
});

/** 15 attempts with delays doubling from the base (10 s) up to 6 h: about 24 h before giving up. */
export const MAX_DELIVERY_ATTEMPTS = 15;
const MAX_DELAY_MS = 6 * 3600 * 1000;

export const retryDelayMs = (attempt: number, baseMs: number, retryAfterSeconds: number | null) =>
  retryAfterSeconds !== null
    ? Math.min(retryAfterSeconds * 1000, MAX_DELAY_MS)
    : Math.min(baseMs * 2 ** (attempt - 1), MAX_DELAY_MS);

/** Failures that another attempt cannot fix. */
const isFinal = (status: number | null, error: string | null) =>
  status === 410 || /^(destination not allowed|unsupported URL scheme|invalid URL)/.test(error ?? '');

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
 * POSTs an item's outcome to its callback_url, signed with the organization's callback secret.
 * Every attempt is recorded; a failure schedules the next attempt (same delivery id) in the same
 * transaction as its record, so a crash never loses or doubles a retry. A job run again by the
 * queue (its worker died, or it threw) whose attempt is already recorded has nothing left to do.
 */
export async function deliverCallback(deps: Deps, payload: unknown, helpers?: JobHelpers): Promise<void> {
  const job = ZCallbackJob.parse(payload);
  const { sql, env } = deps;
  if ((helpers?.job.attempts ?? 1) > 1) {
    const done = await sql`
      select 1 from delivery_attempts where delivery_id = ${job.delivery_id} and attempt = ${job.attempt}`;
    if (done.length > 0) return;
  }
  const secret = await callbackSecret(deps, job.org_id);
  if (!secret) return;
  const headers = {
    ...signDelivery({
      secret,
      body: job.body,
      deliveryId: job.delivery_id,
      timestamp: new Date(),
    }),
    'x-service-event': job.event,
  };
  const result = await postJson(job.url, job.body, headers, { allowPrivate: env.ALLOW_PRIVATE_DESTINATIONS });
  const retry = !result.ok && !isFinal(result.status, result.error) && job.attempt < MAX_DELIVERY_ATTEMPTS;
  const runAt = new Date(
    Date.now() + retryDelayMs(job.attempt, env.DELIVERY_RETRY_BASE_MS, result.retryAfterSeconds),
  );
  const record = {
    org_id: job.org_id,
    delivery_id: job.delivery_id,
    kind: 'callback' as const,
    item_id: job.item_id,
    event: job.event,
    url: job.url,
    attempt: job.attempt,
    status_code: result.status,
    error: result.error,
    duration_ms: Math.round(result.durationMs),
  };
  // Delivered or given up: the record alone, batched with other jobs' records.
  if (!retry) return attemptRecorder(sql).record(record);
  // The attempt's record and the next attempt in one statement: both or neither.
  await sql`
    with attempt as (insert into delivery_attempts ${sql(record)})
    select ${addJob(sql, 'deliver_callback', { ...job, attempt: job.attempt + 1 }, { runAt })}`;
}
