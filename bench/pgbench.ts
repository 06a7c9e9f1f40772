import { spawnSync } from 'node:child_process';
import { createItems } from './items';
import type { Figures } from './lib';
import { alternate, percent } from './rounds';
import { cpuPerOperation, measuringCpu } from './where-time-goes';

/**
 * pgbench's built-in TPC-B-like script against the same PostgreSQL, same client count (at `rate`
 * transactions a second in all, when given): the yardstick for "a write transaction of ours"
 * (after pgbenchInit). Its TPS and the transactions it completed.
 */
export function pgbenchRun(url: string, clients: number, seconds: number, rate?: number) {
  const throttle = rate ? ['-R', String(rate)] : [];
  const run = spawnSync(
    'pgbench',
    ['-c', String(clients), '-j', '2', '-T', String(seconds), ...throttle, url],
    {
      encoding: 'utf8',
    },
  );
  if (run.status !== 0) throw new Error(`pgbench failed: ${run.stderr}`);
  const tps = /tps = ([\d.]+)/.exec(run.stdout);
  const done = /transactions actually processed: (\d+)/.exec(run.stdout);
  if (!tps || !done) throw new Error(`pgbench printed no TPS: ${run.stdout}`);
  return { tps: Math.round(Number(tps[1])), transactions: Number(done[1]) };
}

export const pgbenchTps = (url: string, clients: number, seconds: number) =>
  pgbenchRun(url, clients, seconds).tps;

/** Creates pgbench's tables (scale 10); false when pgbench is not installed (Debian: postgresql-client). */
export function pgbenchInit(url: string): boolean {
  if (spawnSync('pgbench', ['--version'], { encoding: 'utf8' }).status !== 0) return false;
  const init = spawnSync('pgbench', ['-i', '-q', '-s', '10', url], { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`pgbench -i failed: ${init.stderr}`);
  return true;
}

/** BENCH_CREATE_RATE (default 600): the offered load a second at which creation and pgbench are costed. */
const EQUAL_RATE = Number(process.env.BENCH_CREATE_RATE ?? 600);

type Cost = { total: number; parts: Array<[string, number]>; rate: number };

/** The machine's CPU (ms) an operation, by group of processes, over one measured run. */
async function costOf(
  pid: number | undefined,
  groups: string[],
  run: () => Promise<number>,
  seconds: number,
) {
  const { count, ms: parts } = await cpuPerOperation(pid, groups, run);
  return { total: parts.reduce((sum, [, ms]) => sum + ms, 0), parts, rate: Math.round(count / seconds) };
}

const described = (name: string, cost: Cost) =>
  `${name} ${cost.total.toFixed(2)} ms (${cost.parts.map(([group, ms]) => `${group} ${ms.toFixed(2)}`).join(', ')}; ${cost.rate} a second)`;

/**
 * The CPU of the whole machine an item creation and a pgbench transaction take at the same
 * offered load, in alternating rounds: what the throughput ratio comes to when the machine's
 * cores are what runs out, measured where neither side saturates (so steadier than the ratio of
 * throughputs). Creation counts the server, PostgreSQL and the load generator; pgbench,
 * PostgreSQL and its client.
 */
export async function creationCostAgainstPgbench(
  server: { url: string; pid?: number },
  token: string,
  databaseUrl: string,
  rounds: number,
  seconds: number,
) {
  const created = (figures: Figures) => figures.requests ?? 0;
  const costs = await alternate(
    rounds,
    () =>
      costOf(
        server.pid,
        ['server', 'postgres', 'load generator'],
        async () => created(await createItems(server.url, token, seconds, 50, undefined, EQUAL_RATE)),
        seconds,
      ),
    () =>
      costOf(
        server.pid,
        ['postgres', 'pgbench'],
        async () => pgbenchRun(databaseUrl, 50, seconds, EQUAL_RATE).transactions,
        seconds,
      ),
    (creation, pgbench) => pgbench.total / creation.total,
  );
  return [
    `item creation / pgbench at ${EQUAL_RATE} a second, pgbench's CPU a transaction / creation's, median of ${rounds} rounds: ${percent(costs.median)} (rounds ${costs.rounds.map((r) => percent(r.ratio)).join(', ')})`,
    ...costs.rounds.map(
      (r, i) => `round ${i + 1}: ${described('creation', r.first)}; ${described('pgbench', r.second)}`,
    ),
  ];
}

/**
 * The CPU a creation takes with one connection, nothing shared with other requests: each has its
 * own sequencer run, commit and wake-ups, which fifty connections share (their figure is the CPU
 * in cores of the rounds over their rate).
 */
export async function creationCpuAlone(
  server: { url: string; pid?: number },
  token: string,
  seconds: number,
) {
  const used = new Map<string, number>();
  const alone = await measuringCpu(server.pid, used, () => createItems(server.url, token, seconds, 1));
  const ms = (group: string) => ((used.get(group) ?? 0) / (alone.requests || 1)).toFixed(2);
  return `item creation at 1 connection: ${alone.rps}/s, CPU a creation: server ${ms('server')} ms, postgres ${ms('postgres')} ms`;
}
