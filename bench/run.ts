// `pnpm bench [foundation|items|create|list|callbacks|agents|mcp|waiting|web|gate|tracing|sustained|compare <commit>]`: bounded load on loopback against real
// processes and a fresh embedded database. BENCH_SECONDS (default 10) sets the length of each scenario; the ratios
// are medians of BENCH_ROUNDS (default 3) alternating rounds of half that. `waiting`: BENCH_WAITING_STREAMS (default
// 50,000) agents hold /mcp/sse open on one resource process, wait BENCH_WAITING_IDLE_SECONDS (default 60), then 400 of
// them are answered. `tracing` (only when named): creation with tracing off and on (to a local OTLP sink) and, given
// BENCH_BEFORE=<commit>, before it. `sustained` (only when named): creations, answers, deliveries and 10,000 open
// streams together for `--minutes` (default 10); writes its figures into docs/benchmarks.md. The other BENCH_*
// settings (CPU_PROF, HEAP_PROF, PERF, PG_STATEMENTS, PLAN, WARMUP_SECONDS, NODE_FLAGS, MCP_RATE, CREATE_RATE): docs/benchmarks.md.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { answerToStream } from './agents';
import { compare } from './compare';
import { gateDecisions } from './gate';
import { answerItems, createItems, deliverJobs, listItems, seedItems } from './items';
import {
  agentKey,
  benchDatabase,
  type Figures,
  holdsFor,
  load,
  SERVER_ENV,
  signedInOwner,
  startResourceProcess,
  table,
} from './lib';
import { cpuAtEqualLoad, mcpNotify, notifyAgainstRest, notifyRevisions, openTasks, pollTasks } from './mcp';
import { creationCostAgainstPgbench, creationCpuAlone, pgbenchInit, pgbenchTps } from './pgbench';
import { alternate, median, percent, warmUp } from './rounds';
import { sustainedLoad } from './sustained';
import { runContext, sustainedTables, writeSustainedFigures } from './sustained-report';
import { tracingCost, tracingNotes } from './tracing';
import { raiseOpenFiles, waitingAgents } from './waiting-agents';
import { dashboardBundle } from './web';
import { timeSampler } from './where-time-goes';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
/** Open /mcp/sse streams while items are answered (`agents`). */
const AGENT_STREAMS = 200;
const roundSeconds = Math.max(1, Math.round(seconds / 2));
const only = process.argv[2];
if (only === 'web' || only === 'gate') {
  for (const line of only === 'web' ? dashboardBundle() : gateDecisions()) console.log(line);
  process.exit(0);
}
if (only === 'compare') {
  for (const line of await compare(process.argv[3], process.argv.slice(4))) console.log(line);
  process.exit(0);
}
const database = await benchDatabase(only === 'sustained' ? 'default' : 'spaced');
if (only === 'sustained') {
  try {
    const tables = await sustained();
    console.log(`\n${tables}\n`);
    if (!writeSustainedFigures(tables))
      console.log('docs/benchmarks.md has no sustained section to write into');
  } finally {
    await database.stop();
  }
  process.exit(0);
}
if (only === 'waiting') {
  try {
    for (const line of await manyWaitingAgents()) console.log(line);
  } finally {
    await database.stop();
  }
  process.exit(0);
}
// The agents scenario holds AGENT_STREAMS streams of one person's key open at once; the worker
// runs as one that delivers many (docs/configuration.md, WORKER_CONCURRENCY).
const serverEnv = { ...SERVER_ENV, ...holdsFor(AGENT_STREAMS), WORKER_CONCURRENCY: '800' };
const server = await startResourceProcess(database.url, serverEnv);
const results: Figures[] = [];
const notes: string[] = [];
try {
  const { token, orgId } = await signedInOwner(database.sql);
  const auth = { authorization: `Bearer ${token}` };
  await load('warm-up', { url: `${server.url}/api/me`, seconds: 2, headers: auth });

  if (!only || only === 'foundation') {
    // An authenticated no-op (identity, procedure, output validation, JSON) against /health.
    const foundation = await alternate(
      rounds,
      (round) => load(`GET /health (round ${round})`, { url: `${server.url}/health`, seconds: roundSeconds }),
      (round) =>
        load(`GET /api/me, session token (round ${round})`, {
          url: `${server.url}/api/me`,
          seconds: roundSeconds,
          headers: auth,
        }),
      (health, authed) => authed.rps / health.rps,
    );
    for (const { first: health, second: authed, ratio } of foundation.rounds) {
      results.push(health, authed);
      notes.push(`${authed.name}: ${percent(ratio)} of /health`);
    }
    notes.push(
      `authenticated / health throughput, median of ${rounds} rounds: ${percent(foundation.median)} (target >= 60 %)`,
    );
  }

  if (!only || only === 'items' || only === 'create') {
    if (!pgbenchInit(database.url)) notes.push('pgbench not installed: no TPS yardstick');
    else {
      // Item creation against pgbench's TPC-B-like transaction, same database, same 50 clients.
      // Creation warms up first: its code (rounds.ts, warmUp), and its prepared statements and
      // their plans on every connection of the server's pool.
      await warmUp((warm) => createItems(server.url, token, warm, 50));
      const sampler = timeSampler(database.sql, server.pid);
      const creation = await alternate(
        rounds,
        (round) => sampler.during(() => createItems(server.url, token, roundSeconds, 50, round)),
        () => Promise.resolve(pgbenchTps(database.url, 50, roundSeconds)),
        (created, tps) => created.rps / tps,
      );
      for (const { first: created, second: tps, ratio } of creation.rounds) {
        results.push(created);
        notes.push(`${created.name}: pgbench ${tps} TPS; creation = ${percent(ratio)} of it`);
      }
      notes.push(
        `item creation / pgbench, median of ${rounds} rounds: ${percent(creation.median)} (target >= 65 %)`,
        ...(await sampler.report('item creation')),
        await creationCpuAlone(server, token, roundSeconds),
        ...(await creationCostAgainstPgbench(server, token, database.url, rounds, roundSeconds)),
      );
    }
    if (only !== 'create') results.push(await answerItems(database.sql, orgId, server.url, token, seconds));
  }

  if (!only || only === 'items' || only === 'callbacks') {
    await createItems(server.url, token, 1, 1); // an item (and its event) for the deliveries
    // Warmed up first, as a running worker is: a fresh process's deliveries speed up over the
    // first ten thousand or so, as V8 optimizes their code.
    await deliverJobs(database.sql, orgId, 10_000);
    const sampler = timeSampler(database.sql, server.pid);
    const rates: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      const d = await deliverJobs(database.sql, orgId, 5000, sampler.during);
      rates.push(d.perSecond);
      notes.push(
        `deliveries, round ${round}: ${d.delivered} (${d.callback} callbacks, ${d.webhook} webhooks) in ${d.seconds.toFixed(2)} s = ${d.perSecond}/s`,
      );
    }
    notes.push(
      `deliveries, median of ${rounds} rounds: ${Math.round(median(rates))}/s, spread ${Math.min(...rates)}–${Math.max(...rates)}/s (target >= 5,000/s)`,
      ...(await sampler.report('deliveries')),
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
      streams: AGENT_STREAMS,
      answers: 100,
    });
    notes.push(
      `answer -> /mcp/sse arrival at ${AGENT_STREAMS} open streams: p50 ${latency.p50} ms, p99 ${latency.p99} ms ` +
        `(${latency.received}/${latency.expected} deliveries; target p99 < 100 ms)`,
    );
    if (latency.received !== latency.expected) throw new Error('events were lost on the stream');
  }

  if (!only || only === 'mcp') {
    const agent = await agentKey(database.sql, orgId);
    const notify = await notifyAgainstRest(server.url, agent, rounds, roundSeconds);
    for (const { first, second, ratio } of notify.rounds) {
      results.push(first, second);
      notes.push(`${second.name}: ${percent(ratio)} of ${first.name}`);
    }
    notes.push(
      `MCP notify / POST /api/items, median of ${rounds} rounds: ${percent(notify.median)} (target >= 100 %)`,
      await cpuAtEqualLoad(server.url, agent, server.pid, rounds, roundSeconds),
    );
    const revisions = await notifyRevisions(server.url, agent, rounds, roundSeconds);
    for (const { rest, older, modern } of revisions.rounds) results.push(rest, older, modern);
    notes.push(
      `MCP 2026-07-28 notify / 2025-11-25 notify, median of ${rounds} rounds: ${percent(revisions.overOlder)} (target >= 100 %)`,
      `MCP 2026-07-28 notify / POST /api/items, median of ${rounds} rounds: ${percent(revisions.overRest)} (target >= 100 %)`,
    );
    const tasks = await openTasks(server.url, agent, 1000);
    const polled = await pollTasks(server.url, agent, tasks, rounds, roundSeconds);
    if (!polled) notes.push('no MCP tasks on this server: tasks/get not measured');
    for (const { first, second, ratio } of polled?.rounds ?? []) {
      results.push(first, second);
      notes.push(`${second.name}: ${percent(ratio)} of ${first.name}`);
    }
    if (polled)
      notes.push(
        `tasks/get / GET /api/items/{id}, median of ${rounds} rounds: ${percent(polled.median)} (target > 100 %)`,
      );
  }

  if (only === 'tracing') {
    const cost = await tracingCost(database.url, token, rounds, roundSeconds);
    results.push(...cost.measured.map((m) => m.figures));
    notes.push(...tracingNotes(cost, rounds));
  }

  if (!only) notes.push(...dashboardBundle(), ...(await manyWaitingAgents()));

  console.log(`\n${table(results)}\n`);
  for (const note of notes) console.log(note);
  const failed = results.filter((r) => r.errors || r.non2xx);
  if (failed.length)
    throw new Error(
      `failed requests: ${failed.map((r) => `${r.name} ${JSON.stringify(r.statuses)}`).join('; ')}`,
    );
} finally {
  await server.stop();
  await database.stop();
}

/** `sustained [--minutes N] [--streams N] [--rate N]`: the mixed load held for minutes (bench/sustained.ts). */
async function sustained(): Promise<string> {
  const { values } = parseArgs({
    args: process.argv.slice(3),
    options: {
      minutes: { type: 'string', default: '10' },
      streams: { type: 'string', default: '10000' },
      rate: { type: 'string', default: '20' },
    },
  });
  const options = {
    minutes: Number(values.minutes),
    streams: Number(values.streams),
    rate: Number(values.rate),
  };
  if (!Object.values(options).every((n) => Number.isInteger(n) && n > 0)) {
    throw new Error(
      `sustained: --minutes, --streams and --rate take whole numbers above 0 (${process.argv.slice(3)})`,
    );
  }
  const context = await runContext(database.sql);
  return sustainedTables(await sustainedLoad(database, options), context);
}

/** Agents (BENCH_WAITING_STREAMS) waiting on one resource process of its own: answer -> stream latency, memory, idle cost. */
async function manyWaitingAgents(): Promise<string[]> {
  const wanted = Number(process.env.BENCH_WAITING_STREAMS ?? 50_000);
  // One descriptor per stream in the server and in this process, plus a margin for the rest.
  const openFiles = raiseOpenFiles(wanted + 1000);
  const streams = Math.min(wanted, openFiles - 1000);
  const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const loadBefore = load();
  const w = await waitingAgents(database.sql, database.url, {
    streams,
    answers: 400,
    perSecond: 20,
    idleSeconds: Number(process.env.BENCH_WAITING_IDLE_SECONDS ?? 60),
  });
  if (w.received !== w.answers || w.failures || w.stillOpen !== w.streams) {
    throw new Error(`waiting agents: ${JSON.stringify(w)}`);
  }
  return [
    ...(streams < wanted
      ? [
          `waiting agents: the open-file limit (${openFiles}, not raised: that needs CAP_SYS_RESOURCE) holds ${streams} of the ${wanted} streams asked for`,
        ]
      : []),
    `waiting agents: ${w.streams} /mcp/sse streams opened in ${w.openSeconds.toFixed(1)} s (open-file limit ${w.openFiles})`,
    `${w.streams} agents waiting ${w.idleSeconds} s: the resource process used ${w.idleCpuPercent} % of a core, ` +
      `${w.idleTransactionsPerSecond} database transactions/s (keep-alives re-checking credentials); per stream: ` +
      `${((w.idleCpuPercent / 100 / w.streams) * 1e6).toFixed(1)} µs of CPU a second and ` +
      `${((w.idleTransactionsPerSecond * 60) / w.streams).toFixed(2)} transactions a minute`,
    `answer -> agent's stream at ${w.streams} open streams, ${w.answers} answers at 20/s: p50 ${w.p50} ms, ` +
      `p99 ${w.p99} ms, max ${w.max} ms (target p99 < 100 ms); the answers' own responses: p50 ${w.responseP50} ms, ` +
      `p99 ${w.responseP99} ms; the stream's arrival after that response: p50 ${w.afterResponseP50} ms, ` +
      `p99 ${w.afterResponseP99} ms; ${w.transactionsPerSecond} database transactions/s meanwhile`,
    `resource process VmRSS: ${w.rssBeforeMiB} MiB before, ${w.rssOpenMiB} MiB with the streams open, ` +
      `${w.rssAfterMiB} MiB after the answers (target < 1536 MiB); ${w.perStreamKiB.toFixed(1)} KiB per stream`,
    `machine load average (1, 5, 15 min): ${loadBefore} before, ${load()} after (${cpus().length} cores)`,
  ];
}
