import type { InvalidatedCache } from '../caches/invalidations';
import type { Identity } from './identity';

type Entry = { identity: Identity; expiresAt: number; storedAt: number };

/**
 * Resolved identities by token hash, so an authenticated request costs no database round trip.
 * It never outlives a credential: database triggers announce every revocation, expiry change,
 * membership or role change at commit (`token:<hash>`, `member:<org>:<user>`, `role:<id>`), and
 * Beckon's own revocations answer only once every cache has confirmed it (caches/fence.ts). An
 * epoch stops a lookup that raced an invalidation from storing a stale answer; entries also end
 * at the credential's own expiry and after `maxAgeMs`.
 */
export class CredentialCache implements InvalidatedCache {
  readonly kinds = ['token', 'member', 'role'] as const;
  private readonly entries = new Map<string, Entry>();
  private live = false;
  private epoch = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxEntries = 10_000,
    private readonly maxAgeMs = 60_000,
  ) {}

  /** True while its listener is up, so entries may be served. */
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
    this.entries.set(tokenHash, {
      identity,
      expiresAt: expiresAt?.getTime() ?? Infinity,
      storedAt: this.now(),
    });
  }

  apply(kind: string, a: string | undefined, b: string | undefined): void {
    this.epoch += 1;
    if (kind === 'token' && a) this.entries.delete(a);
    else if (kind === 'member') {
      for (const [hash, { identity }] of this.entries) {
        if (identity.orgId === a && identity.userId === b) this.entries.delete(hash);
      }
    } else this.entries.clear();
  }

  reset(live: boolean): void {
    this.epoch += 1;
    this.entries.clear();
    this.live = live;
  }
}
