import { type Figures, load } from './lib';

export type FoundationRun = {
  rounds: Array<{ health: Figures; authed: Figures; ratio: number }>;
  median: number;
};

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/**
 * GET /health against an authenticated no-op (GET /api/me), in alternating rounds: on a shared
 * 2-core machine the throughput of either drifts by ±15 % between runs, so each ratio compares
 * neighbours in time and the median of the rounds is the figure.
 */
export async function healthVersusAuthed(
  url: string,
  token: string,
  seconds: number,
  rounds: number,
): Promise<FoundationRun> {
  const run: FoundationRun['rounds'] = [];
  for (let round = 1; round <= rounds; round++) {
    const health = await load(`GET /health (round ${round})`, { url: `${url}/health`, seconds });
    const authed = await load(`GET /api/me, session token (round ${round})`, {
      url: `${url}/api/me`,
      seconds,
      headers: { authorization: `Bearer ${token}` },
    });
    run.push({ health, authed, ratio: authed.rps / health.rps });
  }
  return { rounds: run, median: median(run.map((r) => r.ratio)) };
}
