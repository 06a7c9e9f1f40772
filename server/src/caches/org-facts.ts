import type { Sql } from '@beckon/db';
import type { InvalidatedCache } from './invalidations';

/**
 * Facts about an organization that item changes depend on: any active webhook, any push device,
 * anyone with mail on, a connection to each chat app.
 */
const FACTS = ['webhooks', 'devices', 'email', 'slack', 'telegram', 'discord', 'teams'] as const;
export type OrgFact = (typeof FACTS)[number];

const connected = (app: string) =>
  `select exists (select 1 from ${app}_connections where org_id = $1) as has`;
const FACT_QUERIES: Record<OrgFact, string> = {
  webhooks: 'select exists (select 1 from webhooks where org_id = $1 and active) as has',
  devices: 'select exists (select 1 from devices where org_id = $1) as has',
  email: 'select exists (select 1 from email_settings where org_id = $1 and enabled) as has',
  slack: connected('slack'),
  telegram: connected('telegram'),
  discord: connected('discord'),
  teams: connected('teams'),
};

/**
 * Which organizations have active outbound webhooks or push devices, so that an item change of
 * one without any leaves that fan-out out of its statement (it cost about 8 % of creation
 * throughput; the chat apps' parts, about as much). Dropped on `<fact>:<org>` (migrations 0005,
 * 0006, 0016, 0018, 0040); creating a webhook, registering a device, turning mail on or
 * connecting a chat app answers after a fence, so every change after that answer reaches it.
 */
export class OrgFacts implements InvalidatedCache {
  readonly kinds = FACTS;
  private readonly facts = new Map<string, boolean>();
  private live = false;
  private epoch = 0;

  constructor(private readonly maxEntries = 10_000) {}

  /** Whether the organization has any, if known (null: ask the database). */
  known(fact: OrgFact, orgId: string): boolean | null {
    return this.live ? (this.facts.get(`${fact}:${orgId}`) ?? null) : null;
  }

  /** Marks the start of a database lookup; pass the result to remember(). */
  begin(): number {
    return this.epoch;
  }

  remember(fact: OrgFact, orgId: string, has: boolean, startedAt: number): void {
    if (!this.live || startedAt !== this.epoch) return;
    if (this.facts.size >= this.maxEntries) this.facts.clear();
    this.facts.set(`${fact}:${orgId}`, has);
  }

  apply(kind: string, orgId: string | undefined): void {
    this.epoch += 1;
    if (orgId) this.facts.delete(`${kind}:${orgId}`);
    else this.facts.clear();
  }

  reset(live: boolean): void {
    this.epoch += 1;
    this.facts.clear();
    this.live = live;
  }

  /**
   * The answer for an item change: remembered, else one query. Without a live cache the answer
   * is yes (the fan-out stays in the statement: always right, no extra round trip).
   */
  static async has(deps: { sql: Sql; orgFacts?: OrgFacts }, fact: OrgFact, orgId: string): Promise<boolean> {
    const cache = deps.orgFacts;
    if (!cache?.live) return true;
    const known = cache.known(fact, orgId);
    if (known !== null) return known;
    const startedAt = cache.begin();
    const [row] = await deps.sql.unsafe<{ has: boolean }[]>(FACT_QUERIES[fact], [orgId]);
    const has = row?.has ?? true;
    cache.remember(fact, orgId, has, startedAt);
    return has;
  }
}
