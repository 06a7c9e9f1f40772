import { listenOnDedicatedConnection } from '@beckon/db';

/** The channel the database triggers notify (migrations 0002, 0005, 0006); the name is historical. */
export const INVALIDATION_CHANNEL = 'beckon_identity';
/** Where each listener acknowledges a fence (`<nonce>:<its listening backend's pid>`). */
export const ACK_CHANNEL = 'beckon_identity_ack';
/** application_name of the listening connections: a fence waits for each of them. */
export const LISTENER_NAME = 'beckon-identity-listener';

/**
 * A cache whose entries the database invalidates. `kinds` are the notification kinds it applies
 * (`<kind>:<a>:<b>`); `reset` empties it and says whether it may serve (its listener is up).
 */
export interface InvalidatedCache {
  readonly kinds: readonly string[];
  apply(kind: string, a: string | undefined, b: string | undefined): void;
  reset(live: boolean): void;
}

/**
 * One listening connection per process for the caches that must never outlive what they hold:
 * database triggers announce every change at commit, and each notification is applied, in commit
 * order, by the caches that know its kind (an unknown kind empties them all). `fence:<nonce>` is
 * answered once every notification before it has been applied (see fenceCaches). The caches
 * serve nothing while the connection is down (notifications could be missed) and start empty
 * each time it (re)connects.
 */
export class Invalidations {
  /** Answers a fence on the listening connection (set while it is up). */
  private acknowledge: (nonce: string) => void = () => {};

  constructor(private readonly caches: readonly InvalidatedCache[]) {}

  handle(message: string): void {
    const [kind = '', a, b] = message.split(':');
    if (kind === 'fence') {
      if (a) this.acknowledge(a);
      return;
    }
    const known = this.caches.filter((cache) => cache.kinds.includes(kind));
    if (known.length === 0) for (const cache of this.caches) cache.reset(true);
    for (const cache of known) cache.apply(kind, a, b);
  }

  private setLive(live: boolean) {
    for (const cache of this.caches) cache.reset(live);
  }

  async listen(url: string): Promise<{ close: () => Promise<void> }> {
    let closing = false;
    const listening = await listenOnDedicatedConnection(url, LISTENER_NAME, INVALIDATION_CHANNEL, {
      onnotify: (message) => this.handle(message),
      onlisten: async (connection) => {
        const [{ pid }] = await connection<[{ pid: number }]>`select pg_backend_pid() as pid`;
        this.acknowledge = (nonce) => {
          connection`select pg_notify(${ACK_CHANNEL}, ${`${nonce}:${pid}`})`.catch(() => {});
        };
        if (!closing) this.setLive(true);
      },
      onclose: () => this.setLive(false),
    });
    return {
      close: async () => {
        closing = true;
        this.setLive(false);
        await listening.close();
      },
    };
  }
}
