import type { JobHelpers } from 'graphile-worker';
import { uuidv7 } from 'uuidv7';
import type { z } from 'zod';
import type { DeliveryJob } from '../delivery/delivery-job';
import { type OutboundResult, postJson, REFUSED_DESTINATION } from '../delivery/outbound';
import { signDelivery } from '../delivery/sign';
import { SLOW_HOST_ERROR } from '../delivery/slow-hosts';
import type { Deps } from '../deps';
import { addJob } from '../job-queue';
import type { TaskPayload, ZWebhookRetry } from '../job-tasks';
import { inGivenTrace } from '../tracing/tracing';

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

/**
 * True when the queue runs this job again (its worker died, or it threw) and its attempt is
 * already recorded: it has nothing left to do. The first run costs no query.
 */
export async function alreadyAttempted(
  deps: Deps,
  job: { delivery_id: string; org_id: string; attempt: number },
  helpers?: JobHelpers,
) {
  if ((helpers?.job.attempts ?? 1) <= 1) return false;
  const done = await deps.sql`
    select 1 from delivery_attempts
     where org_id = ${job.org_id} and delivery_id = ${job.delivery_id} and attempt = ${job.attempt}`;
  return done.length > 0;
}

const hostOf = (url: string) => URL.parse(url)?.host ?? null;

/** Logged with a delivery refused for its address: the setting that allows it. */
export const PRIVATE_DESTINATION_HINT =
  'ALLOW_PRIVATE_DESTINATIONS=true lets deliveries reach private and loopback addresses (development and tests only)';

/** A failed attempt, for the operator: which item, which host, why, and whether it is retried. */
function logFailure(deps: Deps, job: DeliveryJob, kind: string, result: OutboundResult, retry: boolean) {
  deps.log.warn(
    {
      kind,
      item_id: job.item_id,
      delivery_id: job.delivery_id,
      target_host: hostOf(job.url),
      attempt: job.attempt,
      status: result.status,
      reason: result.error ?? `answered ${result.status}`,
      retry,
      // The operator may be the one who meant it (a receiver on this machine, in development).
      ...(result.error === REFUSED_DESTINATION ? { hint: PRIVATE_DESTINATION_HINT } : {}),
    },
    retry ? 'delivery failed; retrying' : 'delivery failed; giving up',
  );
}

/** The attempt of a delivery to a receiver that is timing out, beyond its few at once. */
const notSent: OutboundResult = {
  ok: false,
  status: null,
  retryAfterSeconds: null,
  error: SLOW_HOST_ERROR,
  durationMs: 0,
};

/** The task that makes the next attempt, and its payload (the delivery as first sent). */
type RetryTarget =
  | { task: 'deliver_callback'; retry: TaskPayload<'deliver_callback'> }
  | { task: 'deliver_webhook'; retry: z.input<typeof ZWebhookRetry> };

/**
 * One attempt of a delivery: POSTs the frozen body signed with `secret`, records the attempt,
 * and when it failed and may be retried, schedules the next attempt (same delivery id, `retry`
 * as payload) in the same statement as the record, so a crash never loses or doubles a retry.
 */
export async function attemptDelivery(
  deps: Deps,
  job: DeliveryJob,
  target: RetryTarget & { secret: string; webhookId: string | null },
  signal?: AbortSignal,
): Promise<OutboundResult> {
  const { sql, env } = deps;
  // A receiver that hangs gets a few attempts at once; the others fail at once (slow-hosts.ts).
  const host = hostOf(job.url);
  const done = host === null ? () => {} : deps.slowHosts.start(host);
  let result = notSent;
  if (done)
    try {
      const headers = {
        ...signDelivery({
          secret: target.secret,
          body: job.body,
          deliveryId: job.delivery_id,
          timestamp: new Date(),
        }),
        'x-service-event': job.event,
        ...(job.trace ? { traceparent: job.trace.traceparent } : {}),
        ...(job.trace?.tracestate ? { tracestate: job.trace.tracestate } : {}),
      };
      // When tracing, the request's span replaces the traceparent with its own, in the same trace.
      result = await inGivenTrace(job.trace, () =>
        postJson(job.url, job.body, headers, {
          allowPrivate: env.ALLOW_PRIVATE_DESTINATIONS,
          timeoutMs: env.DELIVERY_TIMEOUT_MS,
          ...(signal ? { signal } : {}),
        }),
      );
    } finally {
      done(result);
    }
  // The worker is stopping: no attempt is recorded and the job fails, so the queue runs it again
  // (here or on another worker) as the same attempt.
  if (signal?.aborted) throw new Error('delivery interrupted: the worker is stopping');
  const retry = !result.ok && !isFinal(result.status, result.error) && job.attempt < MAX_DELIVERY_ATTEMPTS;
  const kind = target.webhookId ? ('webhook' as const) : ('callback' as const);
  deps.metrics?.delivery(kind, result.ok ? 'delivered' : retry ? 'retrying' : 'failed');
  if (!result.ok) logFailure(deps, job, kind, result, retry);
  const record = {
    id: uuidv7(),
    org_id: job.org_id,
    delivery_id: job.delivery_id,
    kind,
    webhook_id: target.webhookId,
    item_id: job.item_id,
    event: job.event,
    url: job.url,
    attempt: job.attempt,
    status_code: result.status,
    error: result.error,
    duration_ms: Math.round(result.durationMs),
  };
  // Delivered or given up: the record alone, batched with other jobs' records.
  if (!retry) {
    await deps.attempts.record(record);
    return result;
  }
  const runAt = new Date(
    Date.now() + retryDelayMs(job.attempt, env.DELIVERY_RETRY_BASE_MS, result.retryAfterSeconds),
  );
  await sql`
    with attempt as (insert into delivery_attempts ${sql(record)})
    select ${addJob(sql, target.task, { ...target.retry, attempt: job.attempt + 1 }, { runAt })}`;
  return result;
}
