import { listenOnDedicatedConnection, type Sql } from '@beckon/db';
import type { Sequencer } from './sequencer';

export const EVENTS_CHANNEL = 'beckon_events';

/** One item event as the streams send it (a row of `events`). */
export type StreamEvent = {
  id: string;
  seq: number;
  org_id: string;
  type: string;
  item_id: string | null;
  agent_id: string | null;
  data: { item?: unknown };
  created_at: Date;
};

/** Receives an organization's events; `lost` is called when some may have been missed. */
export type Subscriber = { event: (event: StreamEvent) => void; lost: () => void };

type OrgSubscribers = { all: Set<Subscriber>; byAgent: Map<string, Set<Subscriber>> };

const EVENT_COLUMNS = 'id, seq::float8 as seq, org_id, type, item_id, agent_id, data, created_at';

/**
 * Fans item events out to the streams of this process (/mcp/sse, /api/ws). Each run of the
 * sequencer that numbers an organization's new events notifies `beckon_events` with
 * `<org>:<first>:<last>` (sequencer.ts), from whichever process ran it; the hub listens on its own
 * connection, reads those events once when someone in that organization is subscribed, and
 * hands them to them in order. Notifications sent while that connection was down are lost: when
 * it listens again, every subscriber is told (`lost`), so streams end and their clients resume
 * from the database.
 */
export class EventHub {
  /**
   * By organization: who follows all of its events, and who follows one agent's only (indexed,
   * so an event costs nothing for the streams of the organization's other agents: 10,000 waiting
   * agents of one organization would otherwise each be visited by every event).
   */
  private readonly subscribers = new Map<string, OrgSubscribers>();
  private listening: { close: () => Promise<void> } | null = null;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly sql: Sql,
    /** Numbers an event a client resumes from that is not numbered yet (absent: not resumed). */
    private readonly sequencer?: Sequencer,
  ) {}

  async listen(url: string): Promise<void> {
    let listened = false;
    this.listening = await listenOnDedicatedConnection(url, 'beckon-events-listener', EVENTS_CHANNEL, {
      onnotify: (payload) => this.notified(payload),
      onlisten: () => {
        if (listened) for (const subscriber of this.everySubscriber()) subscriber.lost();
        listened = true;
      },
    });
  }

  async close(): Promise<void> {
    await this.listening?.close();
    this.listening = null;
  }

  /**
   * Subscribes to an organization's events, or to those of one of its agents (`agentId`: the
   * agent streams of the default scope); returns the unsubscribe function (idempotent).
   */
  subscribe(orgId: string, subscriber: Subscriber, agentId?: string | null): () => void {
    let org = this.subscribers.get(orgId);
    if (!org) {
      org = { all: new Set(), byAgent: new Map() };
      this.subscribers.set(orgId, org);
    }
    const owner = org;
    let set = owner.all;
    if (agentId) {
      set = owner.byAgent.get(agentId) ?? new Set();
      owner.byAgent.set(agentId, set);
    }
    set.add(subscriber);
    return () => {
      set.delete(subscriber);
      if (agentId && set.size === 0 && owner.byAgent.get(agentId) === set) owner.byAgent.delete(agentId);
      if (owner.all.size === 0 && owner.byAgent.size === 0 && this.subscribers.get(orgId) === owner) {
        this.subscribers.delete(orgId);
      }
    };
  }

  get subscriberCount(): number {
    let count = 0;
    for (const org of this.subscribers.values()) {
      count += org.all.size;
      for (const set of org.byAgent.values()) count += set.size;
    }
    return count;
  }

  private notified(payload: string): void {
    const [orgId, first, last] = payload.split(':');
    if (!orgId || !first || !last || !this.subscribers.has(orgId)) return;
    // Read in notification order, so subscribers see events in order.
    const read = this.sql.unsafe<StreamEvent[]>(
      `select ${EVENT_COLUMNS} from events where org_id = $1 and seq between $2 and $3 order by seq`,
      [orgId, first, last],
    );
    this.queue = this.queue.then(async () => {
      const rows = await read.catch(() => null);
      const org = this.subscribers.get(orgId);
      if (!org) return;
      // The event could not be read (the database went away after notifying): its streams end
      // and resume from their last event, which comes before it, rather than skip it.
      if (!rows) {
        for (const subscriber of this.everySubscriber([org])) subscriber.lost();
        return;
      }
      for (const event of rows) this.fanOut(org, event);
    });
  }

  private fanOut(org: OrgSubscribers, event: StreamEvent): void {
    const ofAgent = event.agent_id ? org.byAgent.get(event.agent_id) : undefined;
    for (const set of ofAgent ? [org.all, ofAgent] : [org.all]) {
      for (const subscriber of set) {
        // One failing stream must not stop the fan-out (this chain) for every organization.
        try {
          subscriber.event(event);
        } catch {
          subscriber.lost();
        }
      }
    }
  }

  private everySubscriber(orgs: Iterable<OrgSubscribers> = this.subscribers.values()): Subscriber[] {
    const all: Subscriber[] = [];
    for (const org of orgs) {
      all.push(...org.all);
      for (const set of org.byAgent.values()) all.push(...set);
    }
    return all;
  }

  /**
   * The number of the event with id `afterId` in its organization's order; null when that event
   * is unknown (or pruned). Numbers follow commit order (sequencer.ts): every event numbered
   * after it committed after it, so resuming from its number leaves no gap. An event known to the
   * client before it was numbered (from a webhook) is numbered first.
   */
  async seqOf(orgId: string, afterId: string): Promise<number | null> {
    const read = () => this.sql<{ seq: number | null }[]>`
      select seq::float8 as seq from events where org_id = ${orgId} and id = ${afterId}`;
    let [anchor] = await read();
    if (anchor && anchor.seq === null && this.sequencer) {
      await this.sequencer.settle([orgId]);
      [anchor] = await read();
    }
    return anchor?.seq ?? null;
  }

  /** How many events of an organization follow number `seq`, counted up to `cap` (cap + 1: more). */
  async backlogAfter(orgId: string, seq: number, cap: number): Promise<number> {
    const [row] = await this.sql<{ n: number }[]>`
      select count(*)::int as n from (
        select 1 from events where org_id = ${orgId} and seq > ${seq} limit ${cap + 1}) backlog`;
    return row?.n ?? 0;
  }

  eventsAfterSeq(orgId: string, seq: number, limit: number): Promise<StreamEvent[]> {
    return this.sql.unsafe<StreamEvent[]>(
      `select ${EVENT_COLUMNS} from events where org_id = $1 and seq > $2 order by seq limit $3`,
      [orgId, seq, limit],
    );
  }
}
