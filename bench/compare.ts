import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createItems, deliverJobs } from './items';
import {
  agentKey,
  benchDatabase,
  type Figures,
  load,
  SERVER_ENV,
  signedInOwner,
  startResourceProcess,
} from './lib';
import { mcpNotify } from './mcp';
import { median, percent, warmUp } from './rounds';
import { measuringCpu } from './where-time-goes';

/**
 * `pnpm bench compare <commit> [create|callbacks|mcp ...]`: this checkout against an earlier
 * commit in one run. The commit is checked out beside this one (a detached git worktree with its
 * own install), each side gets a database of its own on one PostgreSQL, migrated by its own
 * code, and a resource process of its own; the scenarios then alternate between the two sides,
 * round after round, so both meet the same machine. Reported: each round's ratio (this / that)
 * and their median, with the spread of the rounds (a difference smaller than the spread is noise);
 * and the CPU each side's resource process and PostgreSQL took per operation of its measured
 * part, from /proc: which of the two a change acts on (it spreads about as far as the rates).
 */
type Side = { name: string; url: string; token: string; key: string; sql: Sql; orgId: string; pid?: number };
type Sql = import('@beckon/db').Sql;
type Measure = <T>(run: () => Promise<T>) => Promise<T>;
/** A scenario's rate (its unit a second) and how many operations its measured part did. */
type Scenario = (side: Side, round: number, measure: Measure) => Promise<{ rate: number; count: number }>;

const SCENARIOS: Record<string, { unit: string; run: Scenario }> = {
  create: {
    unit: 'POST /api/items req/s',
    run: (s, round, measure) => measure(() => createItems(s.url, s.token, seconds(), 50, round)).then(rps),
  },
  mcp: {
    unit: 'MCP service.notify req/s',
    run: (s, round, measure) => measure(() => mcpNotify(s.url, s.key, seconds(), 50, round)).then(rps),
  },
  callbacks: {
    unit: 'deliveries/s',
    run: async (s, _round, measure) => {
      await createItems(s.url, s.token, 1, 1); // an item (and its event) for the deliveries
      const count = 5000;
      return { rate: (await deliverJobs(s.sql, s.orgId, count, measure)).perSecond, count };
    },
  },
};

const seconds = () => Math.max(1, Math.round(Number(process.env.BENCH_SECONDS ?? 10) / 2));
const rps = (figures: Figures) => {
  if (figures.errors || figures.non2xx)
    throw new Error(
      `${figures.name}: ${figures.errors} errors, statuses ${JSON.stringify(figures.statuses)}`,
    );
  return { rate: figures.rps, count: figures.requests ?? 0 };
};
const GROUPS = ['server', 'postgres'] as const;
type Cpu = Record<(typeof GROUPS)[number], number>;

/** One side's run of a scenario, with the milliseconds of CPU per operation its measured part took. */
async function runMeasured(scenario: Scenario, side: Side, round: number) {
  const used = new Map<string, number>();
  const measure: Measure = (run) => measuringCpu(side.pid, used, run);
  const { rate, count } = await scenario(side, round, measure);
  const cpu = Object.fromEntries(
    GROUPS.map((g) => [g, count ? (used.get(g) ?? 0) / count : Number.NaN]),
  ) as Cpu;
  return { rate, cpu };
}

const spreadOf = (ratios: number[]) => Math.max(...ratios) - Math.min(...ratios);

/** A detached checkout of `commit` with its dependencies installed, reused by later runs. */
export function checkout(commit: string): string {
  const sha = execFileSync('git', ['rev-parse', '--verify', `${commit}^{commit}`], {
    encoding: 'utf8',
  }).trim();
  const tree = path.join(tmpdir(), `beckon-compare-${sha.slice(0, 12)}`);
  if (!existsSync(tree))
    execFileSync('git', ['worktree', 'add', '--detach', tree, sha], { stdio: 'inherit' });
  execFileSync('pnpm', ['install', '--frozen-lockfile', '--prefer-offline'], { cwd: tree, stdio: 'inherit' });
  return tree;
}

/** Migrates a database with the checkout's own migrations (its schema may differ from ours). */
function migrateWith(tree: string, url: string) {
  const script = `const { migrateAll } = await import(${JSON.stringify(path.join(tree, 'server/src/database.ts'))});
await migrateAll(process.env.BENCH_DATABASE_URL); process.exit(0);`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: tree,
    env: { ...process.env, BENCH_DATABASE_URL: url },
    stdio: 'inherit',
  });
  if (run.status !== 0) throw new Error(`migrations of ${tree} failed`);
}

export async function compare(commit: string | undefined, names: string[]): Promise<string[]> {
  if (!commit) throw new Error('usage: pnpm bench compare <commit> [create|callbacks|mcp ...]');
  const chosen = names.length ? names : Object.keys(SCENARIOS);
  const unknown = chosen.filter((name) => !(name in SCENARIOS));
  if (unknown.length) throw new Error(`unknown scenario(s): ${unknown.join(', ')}`);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const tree = checkout(commit);
  const database = await benchDatabase();
  const other = await database.another('beckon_base');
  migrateWith(tree, other.url);
  const servers = [
    await startResourceProcess(database.url, SERVER_ENV),
    await startResourceProcess(other.url, SERVER_ENV, tree),
  ];
  try {
    const side = async (
      name: string,
      { url, pid }: { url: string; pid?: number },
      sql: Sql,
    ): Promise<Side> => {
      const { token, orgId } = await signedInOwner(sql);
      await load(`warm-up of ${name}`, {
        url: `${url}/api/me`,
        seconds: 2,
        headers: { authorization: `Bearer ${token}` },
      });
      return { name, url, token, orgId, sql, key: await agentKey(sql, orgId), pid };
    };
    const here = await side('this checkout', servers[0]!, database.sql);
    const there = await side(commit, servers[1]!, other.sql);
    const lines: string[] = [];
    for (const name of chosen) {
      const { unit, run } = SCENARIOS[name]!;
      // Both sides optimized first (rounds.ts): each load lasts a round's half.
      await warmUp(
        () => runMeasured(run, here, 0),
        () => runMeasured(run, there, 0),
      );
      const ratios: number[] = [];
      const cpuRatios: Record<keyof Cpu, number[]> = { server: [], postgres: [] };
      for (let round = 1; round <= rounds; round++) {
        // The earlier commit goes first in odd rounds and second in even ones.
        const earlierFirst = round % 2 === 1;
        const first = await runMeasured(run, earlierFirst ? there : here, round);
        const second = await runMeasured(run, earlierFirst ? here : there, round);
        const [then, now] = earlierFirst ? [first, second] : [second, first];
        ratios.push(now.rate / then.rate);
        for (const group of GROUPS) cpuRatios[group].push(now.cpu[group] / then.cpu[group]);
        const cpu = GROUPS.map((g) => `${g} ${then.cpu[g].toFixed(3)} → ${now.cpu[g].toFixed(3)} ms`);
        lines.push(
          `${name} round ${round}: ${commit} ${then.rate}, this checkout ${now.rate} ${unit} (${percent(now.rate / then.rate)}); CPU an operation: ${cpu.join(', ')}`,
        );
      }
      lines.push(
        `${name}: this checkout / ${commit}, median of ${rounds} rounds: ${percent(median(ratios))} (spread ${percent(spreadOf(ratios))})`,
        `${name}: CPU an operation, this checkout / ${commit}, median of ${rounds} rounds: ${GROUPS.map((g) => `${g} ${percent(median(cpuRatios[g]))} (spread ${percent(spreadOf(cpuRatios[g]))})`).join(', ')}`,
      );
    }
    return lines;
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await database.stop();
  }
}
