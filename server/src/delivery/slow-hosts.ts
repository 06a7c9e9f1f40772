import type { OutboundResult } from './outbound';

/** How an exchange that hung until its timeout is reported (outbound.ts). */
const HUNG = new Set(['timeout', 'connection timed out', 'no response headers in time']);

/** What an attempt refused by SlowHosts records (it was not sent). */
export const SLOW_HOST_ERROR = 'not sent: the receiver is timing out (its other deliveries are being tried)';

/**
 * Receivers that hang get few of the worker's slots. A callback or webhook may wait for its
 * receiver up to DELIVERY_TIMEOUT_MS, and every delivery to a receiver that stopped answering
 * does: without a limit its deliveries would fill every slot, and every other organization's
 * deliveries would wait behind them. A host whose last delivery hung is slow: while it is, at
 * most `slots` deliveries to it run at once in this process, and the others fail at once as an
 * attempt (`SLOW_HOST_ERROR`), retried on the delivery's usual schedule. The first answer in time
 * from it (any status) makes it fast again. A fast host is never limited.
 */
export class SlowHosts {
  private readonly slow = new Set<string>();
  private readonly running = new Map<string, number>();

  constructor(
    private readonly slots: number,
    /** The most slow hosts remembered (the oldest is forgotten first). */
    private readonly remembered = 10_000,
  ) {}

  /**
   * Starts a delivery to `host`: the function to call with its result, or null when the host is
   * slow and `slots` deliveries to it already run here.
   */
  start(host: string): ((result: OutboundResult) => void) | null {
    const running = this.running.get(host) ?? 0;
    if (running >= this.slots && this.slow.has(host)) return null;
    this.running.set(host, running + 1);
    return (result) => {
      const left = (this.running.get(host) ?? 1) - 1;
      if (left > 0) this.running.set(host, left);
      else this.running.delete(host);
      if (result.error !== null && HUNG.has(result.error)) this.markSlow(host);
      else if (result.status !== null) this.slow.delete(host);
    };
  }

  /** Whether deliveries to `host` are limited now. */
  isSlow(host: string): boolean {
    return this.slow.has(host);
  }

  private markSlow(host: string) {
    this.slow.delete(host);
    this.slow.add(host);
    if (this.slow.size > this.remembered) this.slow.delete(this.slow.values().next().value as string);
  }
}
