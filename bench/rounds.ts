/** The median of a non-empty list. */
export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

export type Rounds<A, B> = { rounds: Array<{ first: A; second: B; ratio: number }>; median: number };

/**
 * Two measurements in alternating rounds, and the median of the rounds' ratios: on a shared
 * 2-core machine either figure drifts by ±15 % between runs, so each ratio compares neighbours
 * in time.
 */
export async function alternate<A, B>(
  rounds: number,
  measureFirst: (round: number) => Promise<A>,
  measureSecond: (round: number) => Promise<B>,
  ratio: (first: A, second: B) => number,
): Promise<Rounds<A, B>> {
  const run: Rounds<A, B>['rounds'] = [];
  for (let round = 1; round <= rounds; round++) {
    const first = await measureFirst(round);
    const second = await measureSecond(round);
    run.push({ first, second, ratio: ratio(first, second) });
  }
  return { rounds: run, median: median(run.map((r) => r.ratio)) };
}
