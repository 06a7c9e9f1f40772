import { randomUUID } from 'node:crypto';
import { reconnectBackoff, type Sql } from '@beckon/db';
import postgres from 'postgres';
import type { Deps } from '../deps';
import type { Identity } from './identity';

export const IDENTITY_CHANNEL = 'beckon_identity';
/** Where each cache acknowledges a fence (`<nonce>:<its listening backend's pid>`). */
const ACK_CHANNEL = 'beckon_identity_ack';
/** application_name of the caches' listening connections: the fence waits for each of them. */
const LISTENER_NAME = 'beckon-identity-listener';

type Entry = { identity: Identity; expiresAt: number; storedAt: number };

/** Facts about an organization that item changes depend on: any active webhook, any push device. */
export type OrgFact = 'webhooks' | 'devices';
const ORG_FACTS: readonly string[] = ['webhooks', 'devices'] satisfies OrgFact[];

/**
 * Resolved identities by token hash, so an authenticated request costs no database round trip.
 * It never outlives a credential: database triggers announce every revocation, expiry change,
 * membership or role change on IDENTITY_CHANNEL at commit, and the cache drops what they name;
 * Beckon's own revocations answer only once every cache has confirmed it (fenceIdentities).
 * It serves nothing while its listening connection is down (notifications could be missed),
 * and an epoch stops a lookup that raced an invalidation from storing a stale answer.
 *
 * It also remembers which organizations have active outbound webhooks or push devices (an item
 * change of one without any skips that fan-out), dropped on `webhooks:<org>` / `devices:<org>`
 * (migrations 0005, 0006); creating a webhook or registering a device answers after a fence, so
 * every change after that answer reaches it.
 */
export class IdentityCache {
  private readonly entries = new Map<string, Entry>();
  private readonly orgFacts = new Map<string, boolean>();
  private live = false;
  private epoch = 0;
  /** Answers a fence on the listening connection (set while it is up). */
  private acknowledge: (nonce: string) => void = () => {};

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

  /** Whether the organization has any (webhooks, devices), if known (null: ask the database). */
  orgFact(fact: OrgFact, orgId: string): boolean | null {
    return this.live ? (this.orgFacts.get(`${fact}:${orgId}`) ?? null) : null;
  }

  rememberOrgFact(fact: OrgFact, orgId: string, has: boolean, startedAt: number): void {
    if (!this.live || startedAt !== this.epoch) return;
    if (this.orgFacts.size >= this.maxEntries) this.orgFacts.clear();
    this.orgFacts.set(`${fact}:${orgId}`, has);
  }

  /**
   * Applies one notification: `token:<hash>`, `member:<org>:<user>`, `role:<id>`,
   * `webhooks:<org>`, `devices:<org>`, or `fence:<nonce>`, answered once every notification before it has been applied (they arrive
   * in commit order, and each is applied as it arrives).
   */
  handle(message: string): void {
    this.epoch += 1;
    const [kind, a, b] = message.split(':');
    if (kind === 'token' && a) this.entries.delete(a);
    else if (kind === 'member') {
      for (const [hash, { identity }] of this.entries) {
        if (identity.orgId === a && identity.userId === b) this.entries.delete(hash);
      }
    } else if (kind && ORG_FACTS.includes(kind) && a) this.orgFacts.delete(`${kind}:${a}`);
    else if (kind === 'fence' && a) this.acknowledge(a);
    else this.entries.clear();
  }

  private setLive(live: boolean) {
    this.epoch += 1;
    this.entries.clear();
    this.orgFacts.clear();
    this.live = live;
  }

  /**
   * Listens on IDENTITY_CHANNEL through its own connection; the cache serves entries only while
   * that connection is up, and starts empty each time it (re)connects.
   */
  async listen(url: string): Promise<{ close: () => Promise<void> }> {
    let closing = false;
    let relistening = false;
    const subscribe = async () => {
      await connection`listen ${connection(IDENTITY_CHANNEL)}`;
      const [{ pid }] = await connection<[{ pid: number }]>`select pg_backend_pid() as pid`;
      this.acknowledge = (nonce) => {
        connection`select pg_notify(${ACK_CHANNEL}, ${`${nonce}:${pid}`})`.catch(() => {});
      };
      if (!closing) this.setLive(true);
    };
    // One loop at a time: every failed attempt closes the connection again (onclose).
    const relisten = async (): Promise<void> => {
      if (relistening) return;
      relistening = true;
      for (let delay = 100; !closing; delay = Math.min(delay * 2, 2000)) {
        try {
          await subscribe();
          break;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, delay));
        }
      }
      relistening = false;
    };
    const connection = postgres(url, {
      max: 1,
      idle_timeout: 0,
      max_lifetime: null,
      backoff: reconnectBackoff,
      onnotice: () => {},
      connection: { application_name: LISTENER_NAME },
      onnotify: (_channel: string, message: string) => this.handle(message),
      onclose: () => {
        this.setLive(false);
        if (!closing) void relisten();
      },
    } as postgres.Options<Record<string, never>>);
    await subscribe();
    return {
      close: async () => {
        closing = true;
        this.setLive(false);
        await connection.end({ timeout: 1 });
      },
    };
  }
}

const fenceWaiters = new Map<string, (pid: number) => void>();
const ackListeners = new WeakMap<Sql, Promise<unknown>>();

/** This pool's subscription to the caches' acknowledgements (made once, again after a failure). */
function listenForAcks(sql: Sql): Promise<unknown> {
  let listening = ackListeners.get(sql);
  if (!listening) {
    listening = sql.listen(ACK_CHANNEL, (message) => {
      const [nonce, pid] = message.split(':');
      if (nonce) fenceWaiters.get(nonce)?.(Number(pid));
    });
    listening.catch(() => ackListeners.delete(sql));
    ackListeners.set(sql, listening);
  }
  return listening;
}

const listeningPids = (sql: Sql, among?: number[]) => sql<{ pid: number }[]>`
  select pid from pg_stat_activity
   where application_name = ${LISTENER_NAME} and datname = current_database()
     ${among ? sql`and pid = any(${among}::int[])` : sql``}`;

/**
 * Waits until every identity cache on this database (each resource process) has applied the
 * identity changes committed before the call, so a credential revoked through Beckon fails on
 * the very next request to any process. Caches connecting meanwhile start empty. A cache that
 * does not answer within `timeoutMs` (its process hung), or a database error, is logged and
 * makes the call return false; it never throws, as the revocation itself is already committed.
 */
export async function fenceIdentities(
  deps: Pick<Deps, 'sql' | 'log'>,
  { timeoutMs = 2000, resendMs = 50 } = {},
): Promise<boolean> {
  const { sql, log } = deps;
  const nonce = randomUUID();
  const pending = new Set<number>();
  let wake = () => {};
  fenceWaiters.set(nonce, (pid) => {
    if (pending.delete(pid) && pending.size === 0) wake();
  });
  try {
    await listenForAcks(sql);
    for (const { pid } of await listeningPids(sql)) pending.add(pid);
    for (const deadline = Date.now() + timeoutMs; pending.size > 0 && Date.now() < deadline; ) {
      // Sent again until answered: a cache that was (re)connecting may have missed it.
      await sql.notify(IDENTITY_CHANNEL, `fence:${nonce}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, resendMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (pending.size === 0) break;
      // A cache whose connection is gone serves nothing: no need to wait for it.
      const alive = new Set((await listeningPids(sql, [...pending])).map((row) => row.pid));
      for (const pid of pending) if (!alive.has(pid)) pending.delete(pid);
    }
    if (pending.size > 0) log.warn({ pids: [...pending] }, 'identity caches did not confirm a revocation');
    return pending.size === 0;
  } catch (error) {
    log.warn({ err: error }, 'identity caches could not be fenced');
    return false;
  } finally {
    fenceWaiters.delete(nonce);
  }
}
