import { listenOnDedicatedConnection, type Sql } from '@beckon/db';

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
 * Fans item events out to the streams of this process (/mcp/sse, /api/ws). Every committed
 * change notifies `beckon_events` with `<org>:<event id>` (record-change.ts), from whichever
 * process made it; the hub listens on its own connection, reads each event once when someone in
 * that organization is subscribed, and hands it to them in commit order. Notifications sent while
 * that connection was down are lost: when it listens again, every subscriber is told (`lost`), so
 * streams end and their clients resume from the database.
 */
/**
 * How far back (in event numbers, shared by all organizations) a resumed stream looks for events
 * that committed after the one it resumes from: far more than the events written while one of
 * Beckon's transactions runs.
 */
const LATE_COMMIT_WINDOW = 100_000;

export class EventHub {
  /**
   * By organization: who follows all of its events, and who follows one agent's only (indexed,
   * so an event costs nothing for the streams of the organization's other agents: 10,000 waiting
   * agents of one organization would otherwise each be visited by every event).
   */
  private readonly subscribers = new Map<string, OrgSubscribers>();
  private listening: { close: () => Promise<void> } | null = null;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly sql: Sql) {}

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
    const [orgId, eventId] = payload.split(':');
    if (!orgId || !eventId || !this.subscribers.has(orgId)) return;
    // Read in notification order, so subscribers see events in commit order.
    const read = this.sql.unsafe<StreamEvent[]>(
      `select ${EVENT_COLUMNS} from events where org_id = $1 and id = $2`,
      [orgId, eventId],
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
      const [event] = rows;
      if (!event) return;
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
    });
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
   * Events of an organization after the one with id `afterId`, oldest first: those numbered after
   * it, and those numbered before it whose transaction was still in progress when it was written.
   * Numbers are drawn when an event is written, not when it commits, so an event numbered 100 may
   * commit after 101 has been streamed: resuming from 101 by number alone would skip it. The
   * second kind may repeat an event the client already has (one that committed first): resuming
   * is at least once, never with a gap.
   */
  async eventsAfter(orgId: string, afterId: string, limit: number): Promise<StreamEvent[] | null> {
    const [anchor] = await this.sql<{ seq: string; tx_snapshot: string | null }[]>`
      select seq, tx_snapshot from events where id = ${afterId} and org_id = ${orgId}`;
    if (!anchor) return null;
    const seq = Number(anchor.seq);
    if (!anchor.tx_snapshot) return this.eventsAfterSeq(orgId, seq, limit);
    // Late commits were written while the anchor's transaction ran: numbered shortly before it.
    return this.sql.unsafe<StreamEvent[]>(
      `select ${EVENT_COLUMNS} from events
        where org_id = $1
          and (seq > $2 or (seq < $2 and seq > $2 - ${LATE_COMMIT_WINDOW} and tx_id is not null
                            and not pg_visible_in_snapshot(tx_id, $4::pg_snapshot)))
        order by seq limit $3`,
      [orgId, seq, limit, anchor.tx_snapshot],
    );
  }

  /**
   * How many events of an organization follow the one with id `afterId`, counted up to `cap`
   * (cap + 1 means "more than cap"); null when that event is unknown (or pruned).
   */
  async backlogAfter(orgId: string, afterId: string, cap: number): Promise<number | null> {
    const [row] = await this.sql<{ anchored: boolean; n: number }[]>`
      with anchor as (select seq from events where id = ${afterId} and org_id = ${orgId})
      select exists (select 1 from anchor) as anchored,
             (select count(*)::int from (
                select 1 from events where org_id = ${orgId} and seq > (select seq from anchor)
                 limit ${cap + 1}) backlog) as n`;
    return row?.anchored ? row.n : null;
  }

  eventsAfterSeq(orgId: string, seq: number, limit: number): Promise<StreamEvent[]> {
    return this.sql.unsafe<StreamEvent[]>(
      `select ${EVENT_COLUMNS} from events where org_id = $1 and seq > $2 order by seq limit $3`,
      [orgId, seq, limit],
    );
  }
}
