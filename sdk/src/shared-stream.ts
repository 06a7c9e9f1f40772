import { type StreamConfig, type SubscribeOptions, subscribe } from './events';

type Subscribe = (options: SubscribeOptions) => Promise<void>;
type Listener = SubscribeOptions & { fail: (error: Error) => void };

/**
 * One event stream per scope for every wait of a client, however many questions it waits on:
 * servers cap the streams a credential may hold open, and each would cost a connection. The
 * stream opens with the first subscriber and closes when the last one's signal aborts; each
 * event, (re)connection, drop and reset reaches every subscriber, and a subscriber joining an open
 * stream is told it is open (so it reads its item once, as after any connection). A refusal that
 * no reconnection fixes (400, 401, 403) rejects every subscriber; the next one opens anew.
 * A subscription that resumes from its own `lastEventId` gets a stream of its own.
 */
export function sharedSubscribe(config: StreamConfig): Subscribe {
  const hubs = new Map<string, (options: SubscribeOptions) => Promise<void>>();
  return (options) => {
    if (options.lastEventId !== undefined || !options.signal) return subscribe(config, options);
    const key = options.scope ?? '';
    let join = hubs.get(key);
    if (!join) {
      join = openHub(config, options.scope, () => hubs.delete(key));
      hubs.set(key, join);
    }
    return join(options);
  };
}

function openHub(
  config: StreamConfig,
  scope: SubscribeOptions['scope'],
  closed: () => void,
): (options: SubscribeOptions) => Promise<void> {
  const listeners = new Set<Listener>();
  const controller = new AbortController();
  let open = false;
  const close = () => {
    closed();
    controller.abort();
  };
  subscribe(config, {
    ...(scope ? { scope } : {}),
    signal: controller.signal,
    onEvent: (event) => {
      for (const listener of listeners) listener.onEvent(event);
    },
    onOpen: () => {
      open = true;
      for (const listener of listeners) listener.onOpen?.();
    },
    onDown: (error) => {
      open = false;
      for (const listener of listeners) listener.onDown?.(error);
    },
    onReset: () => {
      for (const listener of listeners) listener.onReset?.();
    },
  }).catch((error: Error) => {
    close();
    for (const listener of listeners) listener.fail(error);
    listeners.clear();
  });

  return (options) =>
    new Promise<void>((resolve, reject) => {
      const { signal } = options;
      if (signal?.aborted || controller.signal.aborted) return resolve();
      const listener: Listener = { ...options, fail: reject };
      listeners.add(listener);
      if (open) queueMicrotask(() => listeners.has(listener) && options.onOpen?.());
      signal?.addEventListener(
        'abort',
        () => {
          listeners.delete(listener);
          if (listeners.size === 0) close();
          resolve();
        },
        { once: true },
      );
    });
}
