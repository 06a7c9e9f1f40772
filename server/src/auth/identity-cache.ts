import { randomUUID } from 'node:crypto';
import type { Sql } from '@beckon/db';
import postgres from 'postgres';
import type { Identity } from './identity';

export const IDENTITY_CHANNEL = 'beckon_identity';

type Entry = { identity: Identity; expiresAt: number; storedAt: number };

/**
 * Resolved identities by token hash, so an authenticated request costs no database round trip.
 * It never outlives a credential: database triggers announce every revocation, expiry change,
 * membership or role change on IDENTITY_CHANNEL at commit, and the cache drops what they name.
 * It serves nothing while its listening connection is down (notifications could be missed),
 * and an epoch stops a lookup that raced an invalidation from storing a stale answer.
 */
export class IdentityCache {
  private readonly entries = new Map<string, Entry>();
  private readonly barriers = new Map<string, () => void>();
  private live = false;
  private epoch = 0;

  constructor(
    private readonly maxEntries = 10_000,
    private readonly maxAgeMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** True while the listening connection is up, so entries may be served. */
  get serving(): boolean {
    return this.live;
  }

  /** Marks the start of a database lookup; pass the result to set(). */
  begin(): number {
    return this.epoch;
  }

  get(tokenHash: string): Identity | null {
    if (!this.live) return null;
    const entry = this.entries.get(tokenHash);
    if (!entry) return null;
    const now = this.now();
    if (now >= entry.expiresAt || now - entry.storedAt >= this.maxAgeMs) {
      this.entries.delete(tokenHash);
      return null;
    }
    return entry.identity;
  }

  set(tokenHash: string, identity: Identity, expiresAt: Date | null, startedAt: number): void {
    if (!this.live || startedAt !== this.epoch) return;
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    const now = this.now();
    this.entries.set(tokenHash, { identity, expiresAt: expiresAt?.getTime() ?? Infinity, storedAt: now });
  }

  /** Applies one notification: `token:<hash>`, `member:<org>:<user>`, `role:<id>` or `sync:<nonce>`. */
  handle(message: string): void {
    this.epoch += 1;
    const [kind, a, b] = message.split(':');
    if (kind === 'token' && a) this.entries.delete(a);
    else if (kind === 'member') {
      for (const [hash, { identity }] of this.entries) {
        if (identity.orgId === a && identity.userId === b) this.entries.delete(hash);
      }
    } else if (kind === 'sync' && a) this.barriers.get(a)?.();
    else this.entries.clear();
  }

  private setLive(live: boolean) {
    this.epoch += 1;
    this.entries.clear();
    this.live = live;
  }

  /**
   * Listens on IDENTITY_CHANNEL through its own connection; the cache serves entries only while
   * that connection is up, and starts empty each time it (re)connects.
   */
  async listen(url: string): Promise<{ close: () => Promise<void> }> {
    let closing = false;
    const relisten = async (): Promise<void> => {
      for (let delay = 100; !closing; delay = Math.min(delay * 2, 5000)) {
        try {
          await connection`listen ${connection(IDENTITY_CHANNEL)}`;
          if (!closing) this.setLive(true);
          return;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, delay));
        }
      }
    };
    const connection = postgres(url, {
      max: 1,
      idle_timeout: 0,
      max_lifetime: null,
      onnotice: () => {},
      connection: { application_name: 'beckon-identity-listener' },
      onnotify: (_channel: string, message: string) => this.handle(message),
      onclose: () => {
        this.setLive(false);
        if (!closing) void relisten();
      },
    } as postgres.Options<Record<string, never>>);
    await connection`listen ${connection(IDENTITY_CHANNEL)}`;
    this.setLive(true);
    return {
      close: async () => {
        closing = true;
        this.setLive(false);
        await connection.end({ timeout: 1 });
      },
    };
  }

  /** Resolves once every notification committed before the call has been applied here. */
  async sync(sql: Sql): Promise<void> {
    const nonce = randomUUID();
    const applied = new Promise<void>((resolve) => this.barriers.set(nonce, resolve));
    await sql.notify(IDENTITY_CHANNEL, `sync:${nonce}`);
    await applied;
    this.barriers.delete(nonce);
  }
}
