import { reconnectBackoff } from '@beckon/db';
import postgres from 'postgres';
import { AppError, isDatabaseUnavailable } from './errors';

/** How often a database known to be down is asked again. */
const PROBE_EVERY_MS = 500;

/** A request under way: when it started, and how to answer it 503 if the database hangs. */
type Waiter = { since: number; fail: (error: AppError) => void };

/**
 * Makes requests fail fast, with a 503 and Retry-After, while the database cannot be reached,
 * instead of answering 500 or hanging (docs/security.md, "What survives a crash").
 *
 * A request is refused at once while the database is known to be down. Otherwise it runs, and
 * - when it fails on a connection error (refused, cut, shut down, connect timeout), the
 *   database is marked down and the request answers 503;
 * - when it has not finished after `waitMs`, the database is asked (`select 1` on a connection
 *   of the watch's own, so it does not queue behind the request's hung one); if that does not
 *   answer within `waitMs` either, the database is marked down and the request answers 503
 *   (its work is abandoned: it cannot commit without the database). A database that answers
 *   means a slow request, which goes on.
 * While the database is down it is asked every half second; the first answer ends the outage.
 * So a request answers within about 2.25 × `waitMs` at worst (a watchdog looks every quarter of
 * it), and at once once the outage is known.
 */
export class DatabaseWatch {
  private down = false;
  private probeClient: postgres.Sql | null = null;
  private probing: Promise<boolean> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  // One timer for all requests under way rather than one each (this runs on every API call).
  private readonly waiting = new Set<Waiter>();
  private watchdog: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly waitMs: number,
    private readonly onChange: (down: boolean) => void = () => {},
  ) {}

  get isDown(): boolean {
    return this.down;
  }

  /** Runs one request's work under the rules above. */
  guard<T>(work: () => Promise<T>, failed: (result: T) => unknown = () => null): Promise<T> {
    if (this.down) return Promise.reject(AppError.databaseUnavailable());
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = { since: performance.now(), fail: reject };
      this.waiting.add(waiter);
      this.watchdog ??= setInterval(() => this.checkWaiting(), Math.max(50, this.waitMs / 4));
      // Settling twice is harmless: an abandoned request's late outcome is ignored.
      work().then(
        (result) => {
          this.waiting.delete(waiter);
          const error = failed(result);
          if (error && isDatabaseUnavailable(error)) this.markDown();
          resolve(result);
        },
        (error: unknown) => {
          this.waiting.delete(waiter);
          if (isDatabaseUnavailable(error)) this.markDown();
          reject(error);
        },
      );
    });
  }

  /** Requests waiting longer than `waitMs`: ask the database; if it does not answer, 503 them. */
  private checkWaiting(): void {
    if (this.waiting.size === 0) {
      clearInterval(this.watchdog);
      this.watchdog = undefined;
      return;
    }
    const cutoff = performance.now() - this.waitMs;
    let late = false;
    for (const waiter of this.waiting) if (waiter.since < cutoff) late = true;
    if (!late || this.probing) return;
    void this.probe().then((up) => {
      if (up) return;
      for (const waiter of this.waiting) {
        if (waiter.since >= cutoff) continue;
        this.waiting.delete(waiter);
        waiter.fail(AppError.databaseUnavailable());
      }
    });
  }

  /** A connection error seen elsewhere (a stream, a listener): the database may be down. */
  report(error: unknown): void {
    if (isDatabaseUnavailable(error)) this.markDown();
  }

  /** Asks the database; true when it answers within `waitMs`. Concurrent calls share one query. */
  probe(): Promise<boolean> {
    this.probing ??= this.ask().finally(() => {
      this.probing = null;
    });
    return this.probing;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.watchdog);
    await this.probeClient?.end({ timeout: 0 });
  }

  private async ask(): Promise<boolean> {
    this.probeClient ??= postgres(this.url, {
      max: 1,
      connect_timeout: Math.max(1, this.waitMs / 1000),
      backoff: reconnectBackoff,
      idle_timeout: 30,
      onnotice: () => {},
      connection: { application_name: 'beckon-database-watch' },
    });
    const client = this.probeClient;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.waitMs);
    });
    const up = await Promise.race([
      client`select 1`.then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
    clearTimeout(timer);
    if (!up) {
      // Its connection may be the one that hangs: the next probe starts afresh.
      if (this.probeClient === client) this.probeClient = null;
      void client.end({ timeout: 0 }).catch(() => {});
      this.markDown();
    } else if (this.down) {
      this.down = false;
      this.onChange(false);
    }
    return up;
  }

  private markDown(): void {
    if (this.down || this.closed) return;
    this.down = true;
    this.onChange(true);
    // Asked at once (a request that failed late, as the database came back, is no outage),
    // then every PROBE_EVERY_MS until it answers.
    const again = async () => {
      if (this.closed) return;
      if (!(await this.probe()) && this.down) this.timer = setTimeout(again, PROBE_EVERY_MS);
    };
    void again();
  }
}
