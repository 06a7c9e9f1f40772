import type { Sql } from '@beckon/db';
import type { Logger } from '../log';
import { type Policy, type Verdict, windowAt } from './policy';
import { addHits } from './store';

type Slot = {
  start: number;
  end: number;
  /** The shared total at the last sync (this process's synced hits included). */
  known: number;
  /** Hits on their way to the database. */
  sending: number;
  /** Hits counted here since the last sync. */
  unsent: number;
};

/** Past this many subjects in memory, those with nothing to send are forgotten at each sync. */
const MAX_SLOTS = 100_000;

/**
 * A fixed-window counter for the busy surfaces: each hit is counted in memory (no database round
 * trip on the request path) and every `syncMs`, or as soon as a subject's unsent hits reach a
 * tenth of its limit, the process adds its hits to the shared counters in PostgreSQL and learns
 * the totals of all processes. The overshoot is bounded: a subject can pass its limit by what
 * the other processes counted since their last sync (at most a tenth of the limit, or `syncMs`
 * worth of requests, each). While the database is unreachable each process counts alone.
 */
export class LocalFirstCounter {
  private readonly slots = new Map<string, Slot>();
  private readonly eagerAt: number;
  private syncing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private lastFailure = 0;

  constructor(
    private readonly sql: Sql,
    readonly policy: Policy,
    private readonly options: { syncMs: number; now: () => number; log: Logger },
  ) {
    this.eagerAt = Math.max(1, Math.floor(policy.limit / 10));
  }

  start(): void {
    this.timer ??= setInterval(() => void this.sync(), this.options.syncMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.sync();
  }

  /** Counts `hits` requests of the subject and answers its count in this window. */
  hit(subject: string, hits = 1, now = this.options.now()): Verdict {
    let slot = this.slots.get(subject);
    if (slot === undefined || now >= slot.end) {
      const { start, end } = windowAt(this.policy, now);
      slot = { start, end, known: 0, sending: 0, unsent: 0 };
      this.slots.set(subject, slot);
    }
    slot.unsent += hits;
    if (slot.unsent >= this.eagerAt) void this.sync();
    return { policy: this.policy, count: slot.known + slot.sending + slot.unsent, resetAt: slot.end };
  }

  /** Sends the unsent hits (one statement) and takes the shared totals; one sync at a time. */
  sync(): Promise<void> {
    this.syncing ??= this.send().finally(() => {
      this.syncing = null;
    });
    return this.syncing;
  }

  private async send(): Promise<void> {
    const now = this.options.now();
    const batch: [string, Slot][] = [];
    for (const [subject, slot] of this.slots) {
      if (slot.unsent > 0) {
        slot.sending = slot.unsent;
        slot.unsent = 0;
        batch.push([subject, slot]);
      } else if (now >= slot.end || this.slots.size > MAX_SLOTS) {
        if (slot.sending === 0) this.slots.delete(subject);
      }
    }
    if (batch.length === 0) return;
    const key = (subject: string) => `${this.policy.name}:${subject}`;
    try {
      const totals = await addHits(
        this.sql,
        batch.map(([subject, slot]) => ({
          key: key(subject),
          start: slot.start,
          end: slot.end,
          hits: slot.sending,
        })),
      );
      for (const [subject, slot] of batch) {
        slot.known = Math.max(slot.known + slot.sending, totals.get(key(subject)) ?? 0);
        slot.sending = 0;
      }
    } catch (error) {
      // Counting goes on locally; the hits of this batch stay counted here only.
      for (const [, slot] of batch) {
        slot.known += slot.sending;
        slot.sending = 0;
      }
      if (now - this.lastFailure > 60_000) {
        this.lastFailure = now;
        this.options.log.warn({ err: error }, 'rate limit counters not shared: counting in this process');
      }
    }
  }
}
