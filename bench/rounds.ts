/** The median of a non-empty list. */
export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** A ratio as a percentage with one decimal: `0.974` → `97.4 %`. */
export const percent = (ratio: number) => `${(ratio * 100).toFixed(1)} %`;

export type Rounds<A, B> = { rounds: Array<{ first: A; second: B; ratio: number }>; median: number };

/**
 * Two measurements in alternating rounds, and the median of the rounds' ratios: on a shared
 * 2-core machine either figure drifts by ±15 % between runs, so each ratio compares neighbours
 * in time. `first` is measured first in odd rounds and second in even ones, so a drift within
 * the run (a growing table, the optimizer still at work) favours neither.
 */
export async function alternate<A, B>(
  rounds: number,
  measureFirst: (round: number) => Promise<A>,
  measureSecond: (round: number) => Promise<B>,
  ratio: (first: A, second: B) => number,
): Promise<Rounds<A, B>> {
  const run: Rounds<A, B>['rounds'] = [];
  for (let round = 1; round <= rounds; round++) {
    let first: A;
    let second: B;
    if (round % 2 === 1) {
      first = await measureFirst(round);
      second = await measureSecond(round);
    } else {
      second = await measureSecond(round);
      first = await measureFirst(round);
    }
    run.push({ first, second, ratio: ratio(first, second) });
  }
  return { rounds: run, median: median(run.map((r) => r.ratio)) };
}

/** BENCH_WARMUP_SECONDS (default 30): how long a scenario's requests run before it is measured. */
export const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 30);

/**
 * Runs the loads in turn, 5 s each, until WARMUP_SECONDS have passed. A fresh resource process
 * speeds up for about half a minute of load as V8 optimizes its code (item creation from about
 * 1.2 to 0.75 ms of server CPU): a round measured before that compares the optimizer's progress.
 */
export async function warmUp(...loads: Array<(seconds: number) => Promise<unknown>>): Promise<void> {
  const until = Date.now() + WARMUP_SECONDS * 1000;
  while (Date.now() < until) for (const run of loads) await run(5);
}
