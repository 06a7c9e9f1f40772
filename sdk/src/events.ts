import { BeckonError, type ErrorBody, errorFromStatus, isAbort, toBeckonError } from './errors';
import { sleep } from './retry';
import { readSse } from './sse';
import type { Item } from './types';

/** An event of GET /mcp/sse: `type` is its kind (`item.created`, `item.answered`...). */
export type StreamEvent = { id: string; type: string; created_at: string; item: Item | null };

export type SubscribeOptions = {
  /**
   * `agent` (an API key's default): the items this agent created; `org`: every item of the
   * organization the token may read. A person's token always sees the organization.
   */
  scope?: 'agent' | 'org';
  /** Resume after this event (the `id` of the last event handled). */
  lastEventId?: string;
  signal?: AbortSignal;
  onEvent: (event: StreamEvent) => void;
  /** The stream is (again) connected: events from now on are delivered. */
  onOpen?: () => void;
  /** The connection failed or dropped; the subscription reconnects on its own. */
  onDown?: (error: Error) => void;
  /** The server could not resume from `lastEventId` (too old): events may have been missed. */
  onReset?: () => void;
};

export type StreamConfig = { baseUrl: string; token: string; fetch: typeof fetch };

const MAX_DELAY_MS = 30_000;

/** Errors no reconnection can fix. */
const isFatal = (error: Error) => error instanceof BeckonError && [400, 401, 403].includes(error.status);

async function errorOf(response: Response): Promise<Error> {
  const text = await response.text().catch(() => '');
  let body: ErrorBody = { error: text.slice(0, 200) || `HTTP ${response.status}` };
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && typeof (parsed as ErrorBody).error === 'string')
      body = parsed as ErrorBody;
  } catch {
    // not JSON: keep the text
  }
  return errorFromStatus(response.status, body);
}

/**
 * Follows the agent event stream until `signal` aborts: reconnects after a drop with
 * `Last-Event-ID` (so nothing is lost or repeated), waiting as the server advises (`retry:`), and
 * longer while it keeps failing. Resolves when aborted; rejects on 400/401/403.
 */
export async function subscribe(config: StreamConfig, options: SubscribeOptions): Promise<void> {
  const { signal } = options;
  let lastEventId = options.lastEventId;
  let retryMs = 2000;
  let failures = 0;
  const url = new URL(`${config.baseUrl.replace(/\/$/, '')}/mcp/sse`);
  if (options.scope) url.searchParams.set('scope', options.scope);

  while (!signal?.aborted) {
    try {
      const headers: Record<string, string> = {
        accept: 'text/event-stream',
        authorization: `Bearer ${config.token}`,
      };
      if (lastEventId) headers['last-event-id'] = lastEventId;
      const response = await config.fetch(url, { headers, signal });
      if (!response.ok || !response.body) throw await errorOf(response);
      failures = 0;
      options.onOpen?.();
      await readSse(response.body, {
        onRetry: (ms) => {
          retryMs = ms;
        },
        onMessage: (message) => {
          if (message.id) lastEventId = message.id;
          if (message.event === 'stream.reset') return options.onReset?.();
          // The server is stopping: the stream ends next, and this follows it elsewhere.
          if (message.event === 'stream.closing') return;
          let event: StreamEvent;
          try {
            event = JSON.parse(message.data) as StreamEvent;
          } catch {
            return;
          }
          options.onEvent(event);
        },
      });
      options.onDown?.(new Error('event stream ended'));
    } catch (raw) {
      if (signal?.aborted || isAbort(raw)) return;
      const error = toBeckonError(raw);
      if (isFatal(error)) throw error;
      failures++;
      options.onDown?.(error);
    }
    const delay = Math.min(MAX_DELAY_MS, retryMs * 2 ** Math.max(0, failures - 1));
    await sleep(delay, signal).catch(() => undefined);
  }
}

/** The same subscription as an async iterable: `for await (const event of events(...))`. */
export async function* iterateEvents(
  config: StreamConfig,
  options: Omit<SubscribeOptions, 'onEvent'>,
): AsyncGenerator<StreamEvent> {
  const controller = new AbortController();
  const stop = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', stop, { once: true });
  const queue: StreamEvent[] = [];
  let wake: (() => void) | null = null;
  let failure: Error | null = null;
  let finished = false;
  const notify = () => {
    wake?.();
    wake = null;
  };
  subscribe(config, {
    ...options,
    signal: controller.signal,
    onEvent: (event) => {
      queue.push(event);
      notify();
    },
  })
    .catch((error: Error) => {
      failure = error;
    })
    .finally(() => {
      finished = true;
      notify();
    });
  try {
    for (;;) {
      const next = queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (failure) throw failure;
      if (finished) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    controller.abort();
    options.signal?.removeEventListener('abort', stop);
  }
}
