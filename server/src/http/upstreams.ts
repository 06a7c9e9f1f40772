/**
 * The gateway's choice among several resource processes: round robin, skipping for `restMs` one
 * the proxy could not reach (connection refused or reset, timeout), so a dead process costs one
 * failed request per `restMs` instead of every other one. When all are resting, the next in turn
 * is tried anyway. Any resource process serves any request (they share the database and hear its
 * notifications), so no request needs to stick to one.
 */
export class UpstreamRotation {
  private turn = 0;
  private readonly restingUntil: number[];

  constructor(
    readonly urls: readonly string[],
    private readonly restMs = 2000,
    private readonly now: () => number = Date.now,
  ) {
    if (urls.length === 0) throw new Error('at least one upstream is needed');
    this.restingUntil = urls.map(() => 0);
  }

  pick(): string {
    const now = this.now();
    for (let tried = 0; tried < this.urls.length; tried++) {
      const index = (this.turn + tried) % this.urls.length;
      if ((this.restingUntil[index] ?? 0) <= now) {
        this.turn = index + 1;
        return this.urls[index] ?? '';
      }
    }
    const index = this.turn++ % this.urls.length;
    return this.urls[index] ?? '';
  }

  /** The proxy could not get an answer from `url`: it rests. */
  failed(url: string): void {
    const index = this.urls.indexOf(url);
    if (index >= 0) this.restingUntil[index] = this.now() + this.restMs;
  }
}
