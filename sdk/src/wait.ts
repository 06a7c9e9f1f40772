import { BeckonError, isAbort, NotFoundError, PermissionDeniedError, UnauthorizedError } from './errors';
import type { SubscribeOptions } from './events';
import type { Item } from './types';

/** How a question ended. `timeout`: nobody answered within `timeoutMs` (the item is the last seen). */
export type WaitOutcome = {
  status: 'answered' | 'dismissed' | 'expired' | 'withdrawn' | 'timeout';
  item: Item;
  /** The form values when answered, else null. */
  response: Record<string, unknown> | null;
  /**
   * True when the item's timeout policy decided at the deadline (`on_timeout` answered or dismissed
   * it: `answered_by.type` is `policy`), not a person.
   */
  byPolicy: boolean;
};

export type WaitOptions = {
  /** Give up after this long and resolve with `status: 'timeout'`. Default: wait until `signal`. */
  timeoutMs?: number;
  /** Aborting rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Polling interval while the event stream is unavailable (default 2000 ms). */
  pollIntervalMs?: number;
  /**
   * Stream scope. `ask().waitForAnswer` leaves the server's default (an agent's key: its own items);
   * `client.waitForAnswer(id)` uses `org`, so it works for any item the token may read.
   */
  scope?: 'agent' | 'org';
  /** Called with each newer state of the item while it is still waiting (seen, claimed, approvals). */
  onUpdate?: (item: Item) => void;
};

/**
 * The outcome an item's state already shows, or null while it is still waiting. An item archived
 * after its answer counts as answered; one archived unanswered may still be unarchived, so it waits.
 */
export function outcomeOf(item: Item): WaitOutcome | null {
  const { status } = item;
  const byPolicy = item.answered_by?.type === 'policy';
  if (status === 'answered' || (status === 'archived' && item.response !== null))
    return { status: 'answered', item, response: item.response, byPolicy };
  if (status === 'dismissed' || status === 'expired' || status === 'withdrawn')
    return { status, item, response: null, byPolicy };
  return null;
}

const isFinal = (error: unknown) =>
  error instanceof UnauthorizedError ||
  error instanceof PermissionDeniedError ||
  error instanceof NotFoundError ||
  (error instanceof BeckonError && error.status === 400);

/**
 * Waits for the outcome of `initial` (an item just read or created): follows the event stream
 * (`subscribe`: the client's stream, shared by all its waits) and reads the item once after
 * every (re)connection, so an answer given before the stream opened is seen; while the stream is
 * down (or not served), reads it every `pollIntervalMs`.
 */
export function waitForOutcome(
  subscribe: (options: SubscribeOptions) => Promise<void>,
  initial: Item,
  getItem: (signal: AbortSignal) => Promise<Item>,
  options: WaitOptions = {},
): Promise<WaitOutcome> {
  const already = outcomeOf(initial);
  if (already) return Promise.resolve(already);
  if (options.signal?.aborted) return Promise.reject(options.signal.reason);

  return new Promise<WaitOutcome>((resolve, reject) => {
    const controller = new AbortController();
    const { signal } = controller;
    let latest = initial;
    let streamUp = false;
    let pollTimer: ReturnType<typeof setTimeout> | undefined;
    let timeoutTimer: ReturnType<typeof setTimeout> | undefined;

    const finish = (settle: () => void) => {
      if (signal.aborted) return;
      controller.abort();
      clearTimeout(pollTimer);
      clearTimeout(timeoutTimer);
      options.signal?.removeEventListener('abort', onAbort);
      settle();
    };
    const onAbort = () => finish(() => reject(options.signal?.reason));
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const see = (item: Item) => {
      if (item.id !== initial.id || item.updated_at < latest.updated_at) return;
      latest = item;
      const outcome = outcomeOf(item);
      if (outcome) finish(() => resolve(outcome));
      else options.onUpdate?.(item);
    };
    const poll = async () => {
      try {
        see(await getItem(signal));
      } catch (error) {
        if (signal.aborted || isAbort(error)) return;
        if (isFinal(error)) finish(() => reject(error));
        // Anything else is transient: the next poll or event will do.
      }
    };
    const pollWhileDown = async () => {
      if (signal.aborted) return;
      if (!streamUp) await poll();
      if (!signal.aborted) pollTimer = setTimeout(pollWhileDown, options.pollIntervalMs ?? 2000);
    };

    if (options.timeoutMs !== undefined) {
      timeoutTimer = setTimeout(
        () => finish(() => resolve({ status: 'timeout', item: latest, response: null, byPolicy: false })),
        options.timeoutMs,
      );
    }
    pollTimer = setTimeout(pollWhileDown, options.pollIntervalMs ?? 2000);
    subscribe({
      ...(options.scope ? { scope: options.scope } : {}),
      signal,
      onEvent: (event) => {
        if (event.item) see(event.item);
      },
      onOpen: () => {
        streamUp = true;
        void poll();
      },
      onDown: () => {
        streamUp = false;
      },
      onReset: () => void poll(),
    }).catch((error: Error) => {
      // The stream refuses this token: polling says whether the item can be read at all.
      streamUp = false;
      if (!(error instanceof UnauthorizedError)) return;
      finish(() => reject(error));
    });
  });
}
