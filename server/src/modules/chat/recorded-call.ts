import { uuidv7 } from 'uuidv7';
import type { Deps } from '../../deps';
import type { ChatProvider } from './link-codes';

/** The delivery a call of a job belongs to (one row of GET /api/deliveries per call). */
export type CallRef = { orgId: string; itemId: string; deliveryId: string; event: string; attempt: number };

/** A failed call as the delivery log shows it, and whether trying again may change it. */
export type CallFailure = { error: string; status: number | null; permanent: boolean };

/**
 * One API call of a chat app as a delivery attempt (kind `telegram` or `discord` in
 * GET /api/deliveries), recorded with its duration and error. A failure the app may get over
 * (rate limit, network, its 5xx) is thrown so graphile-worker runs the job again; a permanent one
 * (a chat the bot is not in, a message gone) ends it, and the answer is null.
 */
export async function recordedCall<T>(
  deps: Deps,
  kind: ChatProvider,
  url: string,
  call: CallRef,
  run: () => Promise<T>,
  classify: (error: unknown) => CallFailure,
): Promise<T | null> {
  const started = performance.now();
  let failure: CallFailure | null = null;
  let result: T | null = null;
  try {
    result = await run();
  } catch (caught) {
    failure = classify(caught);
  }
  await deps.attempts.record({
    id: uuidv7(),
    org_id: call.orgId,
    delivery_id: call.deliveryId,
    kind,
    webhook_id: null,
    item_id: call.itemId,
    event: call.event,
    url,
    attempt: call.attempt,
    status_code: failure ? failure.status : 200,
    error: failure?.error ?? null,
    duration_ms: Math.round(performance.now() - started),
  });
  if (failure && !failure.permanent) throw new Error(`${kind} ${url}: ${failure.error}`);
  return result;
}
