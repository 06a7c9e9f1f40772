import { BeckonError, ConflictError, isAbort, NetworkError, RateLimitError, ServerError } from './errors';

/** A 429 asking to wait longer than this is not retried (it rejects with its `retryAfterSeconds`). */
export const MAX_RETRY_AFTER_SECONDS = 10;

export type RetryOptions = {
  /** Retries after the first attempt (default 3). */
  retries: number;
  /** First delay in ms, doubled each time, with jitter (default 300). */
  baseDelayMs: number;
};

/**
 * Whether a failed call may be sent again. `safe` calls (reads, and creates carrying an
 * Idempotency-Key) retry on anything transient; other mutations only on answers that say the
 * request was not processed (429, 503), so an action is never applied twice.
 */
export function isRetryable(error: Error, safe: boolean): boolean {
  if (isAbort(error) || !(error instanceof BeckonError)) return false;
  if (error instanceof RateLimitError || error.status === 503) return true;
  if (error instanceof NetworkError || error instanceof ServerError) return safe;
  // The first attempt of this idempotent create is still running on the server.
  return safe && error instanceof ConflictError && /idempotency key is in progress/.test(error.message);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Runs `attempt` until it succeeds, fails for good, or the retries are spent. */
export async function withRetry<T>(
  attempt: () => Promise<T>,
  options: RetryOptions & { safe: boolean; signal?: AbortSignal | undefined },
  toError: (error: unknown) => Error,
): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (raw) {
      const error = toError(raw);
      if (n >= options.retries || !isRetryable(error, options.safe)) throw error;
      let delay = options.baseDelayMs * 2 ** n * (0.5 + Math.random() / 2);
      if (error instanceof RateLimitError && error.retryAfterSeconds !== null) {
        // The server says when the window ends: sooner is refused again; much later is the
        // caller's decision (the error says how long).
        if (error.retryAfterSeconds > MAX_RETRY_AFTER_SECONDS) throw error;
        delay = Math.max(delay, error.retryAfterSeconds * 1000 + Math.random() * 250);
      }
      await sleep(delay, options.signal);
    }
  }
}

/** A random UUID (v4), in browsers without a secure context too. */
export function randomUuid(): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === 'function') return c.randomUUID();
  const bytes = c.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
