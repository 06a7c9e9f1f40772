// `pnpm bench [foundation|items|list|callbacks|agents|web]`: bounded load on loopback against real processes and a fresh
// embedded database. BENCH_SECONDS (default 10) sets the length of each scenario.
import { answerToStream, mcpNotify } from './agents';
import { healthVersusAuthed } from './foundation';
import { answerItems, createItems, deliverCallbacks, listItems, seedItems } from './items';
import {
  agentKey,
  benchDatabase,
  type Figures,
  load,
  signedInOwner,
  startResourceProcess,
  table,
} from './lib';
import { pgbenchTps } from './pgbench';
import { dashboardBundle } from './web';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const only = process.argv[2];
if (only === 'web') {
  for (const line of dashboardBundle()) console.log(line);
  process.exit(0);
}
const database = await benchDatabase();
const server = await startResourceProcess(database.url, {
  RUN_WORKER: 'true',
  WORKER_CONCURRENCY: '50',
  ALLOW_PRIVATE_DESTINATIONS: 'true',
  DATABASE_POOL_MAX: '20',
});
const results: Figures[] = [];
const notes: string[] = [];
try {
  const { token, orgId } = await signedInOwner(database.sql);
  const auth = { authorization: `Bearer ${token}` };
  await load('warm-up', { url: `${server.url}/api/me`, seconds: 2, headers: auth });

  if (!only || only === 'foundation') {
    const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
    const foundation = await healthVersusAuthed(
      server.url,
      token,
      Math.max(1, Math.round(seconds / 2)),
      rounds,
    );
    for (const { health, authed, ratio } of foundation.rounds) {
      results.push(health, authed);
      notes.push(`${authed.name}: ${(ratio * 100).toFixed(1)} % of /health`);
    }
    notes.push(
      `authenticated / health throughput, median of ${rounds} rounds: ${(foundation.median * 100).toFixed(1)} % (target >= 60 %)`,
    );
  }

  if (!only || only === 'items') {
    const created = await createItems(server.url, token, seconds);
    results.push(created);
    const tps = pgbenchTps(database.url, 50, seconds);
    notes.push(
      tps === null
        ? 'pgbench not installed: no TPS yardstick'
        : `pgbench TPC-B-like, 50 clients: ${tps} TPS; item creation = ${((created.rps / tps) * 100).toFixed(1)} % of it (target >= 50 %)`,
    );
    results.push(await answerItems(database.sql, orgId, server.url, token, seconds));
  }

  if (!only || only === 'items' || only === 'callbacks') {
    await createItems(server.url, token, 1, 1); // an item for the callbacks to refer to
    const callbacks = await deliverCallbacks(database.sql, orgId, 5000);
    notes.push(
      `callbacks: ${callbacks.delivered} delivered in ${callbacks.seconds.toFixed(2)} s = ${callbacks.perSecond}/s (target >= 1,000/s)`,
    );
  }

  if (!only || only === 'items' || only === 'list') {
    const listOrg = await signedInOwner(database.sql);
    const started = Date.now();
    await seedItems(database.sql, listOrg.orgId, 1_000_000);
    notes.push(`seeded 1,000,000 items in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    for (const connections of [1, 10]) {
      const listed = await listItems(server.url, listOrg.token, seconds, connections);
      results.push(listed);
      notes.push(`list p99 at 1M items, ${connections} connection(s): ${listed.p99} ms (target < 25 ms)`);
    }
  }

  if (!only || only === 'agents') {
    const agent = await agentKey(database.sql, orgId);
    results.push(await mcpNotify(server.url, agent, seconds));
    const latency = await answerToStream(database.sql, orgId, server.url, token, {
      streams: 200,
      answers: 100,
    });
    notes.push(
      `answer -> /mcp/sse arrival at 200 open streams: p50 ${latency.p50} ms, p99 ${latency.p99} ms ` +
        `(${latency.received}/${latency.expected} deliveries; target p99 < 100 ms)`,
    );
    if (latency.received !== latency.expected) throw new Error('events were lost on the stream');
  }

  if (!only) notes.push(...dashboardBundle());

  console.log(`\n${table(results)}\n`);
  for (const note of notes) console.log(note);
  if (results.some((r) => r.errors || r.non2xx)) throw new Error('a scenario had failed requests');
} finally {
  await server.stop();
  await database.stop();
}
