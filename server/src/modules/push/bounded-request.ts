import https from 'node:https';

/**
 * How push requests are sent: under a deadline for the whole exchange and with a cap on the
 * answer read, like webhooks (delivery/outbound.ts), and with a memory of the endpoints that
 * ran into the deadline, so a slow or hostile one cannot hold every push up behind it.
 */

/** What one push attempt came to: delivered, worth retrying, or never (and the device is gone?). */
export type PushOutcome = { ok: true } | { ok: false; retry: boolean; gone: boolean; error: string };

type Deferred = Extract<PushOutcome, { ok: false }>;

/** Push services answer a few bytes; reading stops here (a hostile endpoint may stream forever). */
export const MAX_PUSH_RESPONSE_BYTES = 64 * 1024;
/** An endpoint's origin that let a request run into the deadline is not asked again for this long. */
export const SLOW_ORIGIN_COOLDOWN_MS = 30_000;

class PushTimeout extends Error {
  constructor(deadlineMs: number) {
    super(`no answer within ${deadlineMs} ms`);
  }
}

/**
 * Origins whose last request ran into the deadline. Their pushes are deferred (failed, to be
 * retried) without a request until the cooldown ends, so one slow or hostile push endpoint costs
 * the deadline once, not on every entry while other organizations' pushes wait behind it.
 */
const slowOrigins = new Map<string, number>();

export function deferredBySlowOrigin(url: string): Deferred | null {
  const origin = new URL(url).origin;
  const until = slowOrigins.get(origin);
  if (until === undefined) return null;
  if (Date.now() >= until) {
    slowOrigins.delete(origin);
    return null;
  }
  return {
    ok: false,
    retry: true,
    gone: false,
    error: `deferred: ${origin} did not answer in time recently`,
  };
}

function rememberSlow(url: string): void {
  if (slowOrigins.size >= 10_000) slowOrigins.clear();
  slowOrigins.set(new URL(url).origin, Date.now() + SLOW_ORIGIN_COOLDOWN_MS);
}

/** Forgets every slow origin (tests). */
export const forgetSlowOrigins = () => slowOrigins.clear();

/** Reads at most MAX_PUSH_RESPONSE_BYTES of a fetch response, then stops (and closes it). */
async function cappedText(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < MAX_PUSH_RESPONSE_BYTES) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
  }
  if (size >= MAX_PUSH_RESPONSE_BYTES) await reader.cancel().catch(() => {});
  return Buffer.concat(chunks).subarray(0, MAX_PUSH_RESPONSE_BYTES).toString('utf8');
}

/** fetch under `deadlineMs` (the whole exchange, body included) and the response cap. */
export async function boundedFetch(
  url: string,
  init: RequestInit,
  deadlineMs: number,
): Promise<{ status: number; text: string }> {
  const deferred = deferredBySlowOrigin(url);
  if (deferred) throw Object.assign(new Error(deferred.error), { deferred });
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new PushTimeout(deadlineMs)), deadlineMs);
  try {
    const response = await fetch(url, { ...init, signal: controller.signal });
    return { status: response.status, text: await cappedText(response) };
  } catch (error) {
    if (controller.signal.aborted) {
      rememberSlow(url);
      throw new PushTimeout(deadlineMs);
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One HTTPS request under `deadlineMs` and the response cap, through `agent` (which refuses
 * private addresses). web-push's own sender reads the whole answer and only has an idle timeout.
 */
export function boundedHttps(
  url: string,
  request: { method: string; headers: Record<string, string | number>; body: Buffer | null },
  agent: https.Agent,
  deadlineMs: number,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const req = https.request(url, { method: request.method, headers: request.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () =>
        settle(() =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).subarray(0, MAX_PUSH_RESPONSE_BYTES).toString('utf8'),
          }),
        );
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= MAX_PUSH_RESPONSE_BYTES) {
          done();
          res.destroy();
        }
      });
      res.on('end', done);
      res.on('error', (error) => settle(() => reject(error)));
    });
    const timer = setTimeout(() => {
      rememberSlow(url);
      settle(() => reject(new PushTimeout(deadlineMs)));
      req.destroy();
    }, deadlineMs);
    req.on('error', (error) => settle(() => reject(error)));
    req.end(request.body ?? undefined);
  });
}
