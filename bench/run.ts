// `pnpm bench`: bounded load on loopback against real processes and a fresh embedded database.
// BENCH_SECONDS (default 10) sets the length of each scenario.
import { benchDatabase, type Figures, load, signedInOwner, startResourceProcess, table } from './lib';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const database = await benchDatabase();
const server = await startResourceProcess(database.url);
const results: Figures[] = [];
try {
  const token = await signedInOwner(database.sql);
  // Warm-up, so JIT and connection pools are in their steady state.
  await load('warm-up', {
    url: `${server.url}/api/me`,
    seconds: 2,
    headers: { authorization: `Bearer ${token}` },
  });

  const health = await load('GET /health', { url: `${server.url}/health`, seconds });
  const authed = await load('GET /api/me (session token)', {
    url: `${server.url}/api/me`,
    seconds,
    headers: { authorization: `Bearer ${token}` },
  });
  results.push(health, authed);
  console.log(`\n${table(results)}\n`);
  const ratio = authed.rps / health.rps;
  console.log(`authenticated / health throughput: ${(ratio * 100).toFixed(1)} % (target >= 60 %)`);
  if (authed.non2xx || authed.errors) throw new Error('the authenticated scenario had failed requests');
} finally {
  await server.stop();
  await database.stop();
}
