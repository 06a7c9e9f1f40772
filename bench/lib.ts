import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDb, ensureDatabase, startEmbeddedPostgres, withDatabase } from '@beckon/db';
import { generateOrgToken, generateToken, hashToken } from '@beckon/server/auth/tokens';
import { migrateAll } from '@beckon/server/database';
import autocannon from 'autocannon';
import { runScript, untilHealthy } from '../scripts/cluster/processes';
import { buildServer } from '../tests/src/harness/production';

export type Figures = {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** How many answers of each status (`{"201": 950, "503": 2}`). */
  statuses?: Record<string, number>;
  /** Requests completed in all. */
  requests?: number;
};

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });

/** A fresh embedded PostgreSQL with the schema, for one benchmark run. */
export async function benchDatabase(
  /**
   * `spaced` (the default): a checkpoint every 30 minutes or past 4 GB of WAL, so that none falls
   * inside a scenario's rounds. At PostgreSQL's default max_wal_size, creation's WAL asks for one
   * about every 100 s, and the minute after it runs ~20 % slower (docs/benchmarks.md): rounds
   * before and after one are not comparable. `default`: PostgreSQL's own (`sustained`, which
   * measures a server as it runs).
   */
  checkpoints: 'spaced' | 'default' = 'spaced',
) {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'beckon-bench-'));
  // BENCH_PG_STATEMENTS=1: statement statistics, reported by the scenarios that sample where their time goes.
  const statements = Boolean(process.env.BENCH_PG_STATEMENTS);
  const settings = {
    ...(statements
      ? {
          shared_preload_libraries: 'pg_stat_statements',
          'pg_stat_statements.track': 'all',
          'pg_stat_statements.track_planning': 'on',
        }
      : {}),
    ...(checkpoints === 'spaced' ? { max_wal_size: '4GB', checkpoint_timeout: '30min' } : {}),
  };
  const pg = await startEmbeddedPostgres({ dataDir, port: await freePort(), settings });
  await ensureDatabase(pg.url, 'beckon');
  const url = withDatabase(pg.url, 'beckon');
  await migrateAll(url);
  const { sql, end } = createDb(url, { max: 4, applicationName: 'beckon-bench' });
  if (statements) await sql`create extension if not exists pg_stat_statements`;
  const others: Array<() => Promise<void>> = [];
  return {
    url,
    sql,
    /** Another empty database on the same server (migrated by whoever asks for it). */
    another: async (name: string) => {
      await ensureDatabase(pg.url, name);
      const other = createDb(withDatabase(pg.url, name), { max: 4, applicationName: 'beckon-bench' });
      others.push(other.end);
      return { url: withDatabase(pg.url, name), sql: other.sql };
    },
    stop: async () => {
      await Promise.all([end(), ...others.map((close) => close())]);
      await pg.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The benchmarked resource process's settings: it runs the worker, deliveries go to loopback. */
export const SERVER_ENV = {
  RUN_WORKER: 'true',
  WORKER_CONCURRENCY: '50',
  ALLOW_PRIVATE_DESTINATIONS: 'true',
  // DATABASE_POOL_MAX stays the default (10). On two cores a larger pool is slower: at 20, item
  // creation ran about 10 % slower, its sessions waiting on one another for the WAL (docs/benchmarks.md).
  // One session floods the API on purpose here: the limit is counted (its cost is measured) but
  // set out of reach. Leave RATE_LIMIT_ENABLED on, or the figures would hide that cost.
  RATE_LIMIT_API: '1000000000/1m',
  // Every connection of the load comes from one address: more bodies in flight than one client may hold.
  HTTP_MAX_BODIES_PER_ADDRESS: '10000',
  // autocannon keeps sending on a socket the server asked to close (`Connection: close` after
  // HTTP_MAX_REQUESTS_PER_SOCKET), and Node answers those requests 503 without running them.
  HTTP_MAX_REQUESTS_PER_SOCKET: '0',
};

/**
 * Raised caps on what callers hold open (HOLDS_PER_*, docs/configuration.md) for `streams` event
 * streams from one benchmark: one person's keys, and one process, hold them all; and an identity
 * cache that keeps every stream's credential (IDENTITY_CACHE_ENTRIES), as an operator sets it.
 */
export const holdsFor = (streams: number) => {
  const cap = String(streams + 100);
  return {
    HOLDS_PER_CREDENTIAL: cap,
    HOLDS_PER_USER: cap,
    HOLDS_PER_PROCESS: cap,
    IDENTITY_CACHE_ENTRIES: String(Math.max(10_000, streams + 1000)),
  };
};

/**
 * The resource process of the compiled build, started from its package.json script
 * (`start:resource`, built first) as operators run it; worker off unless `env` says otherwise.
 */
export async function startCompiledResource(databaseUrl: string, env: Record<string, string> = {}) {
  await buildServer();
  const port = await freePort();
  const server = runScript('start:resource', {
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    RUN_WORKER: 'false',
    ...env,
  });
  server.child.stderr?.pipe(process.stderr);
  const url = `http://127.0.0.1:${port}`;
  try {
    await untilHealthy(`${url}/health`, server);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { url, pid: server.child.pid ?? 0, stop: () => server.stop(), kill: server.kill };
}

/** BENCH_NODE_FLAGS: node flags for the benchmarked resource process (`--trace-gc-nvp`, say). */
const RESOURCE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);

/** The resource process as its own OS process, as in production (no worker, quiet logs). */
export async function startResourceProcess(
  databaseUrl: string,
  env: Record<string, string> = {},
  /** The checkout whose code runs (bench compare runs an older commit beside this one). */
  cwd = process.cwd(),
) {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      // BENCH_CPU_PROF=<dir>: a V8 CPU profile of the resource process, written when it stops.
      ...RESOURCE_FLAGS,
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
      '--import',
      'tsx',
      // BENCH_HEAP_PROF=<dir>: where the resource process allocates (heap-profile.ts).
      ...(process.env.BENCH_HEAP_PROF ? ['--import', path.join(import.meta.dirname, 'heap-profile.ts')] : []),
      'server/src/processes/resource.ts',
    ],
    {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PORT: String(port),
        LOG_LEVEL: 'warn',
        RUN_WORKER: 'false',
        ...env,
      },
      stdio: ['ignore', 'inherit', 'inherit'],
      cwd,
    },
  );
  const url = `http://127.0.0.1:${port}`;
  // A loaded machine compiles the TypeScript slowly: up to a minute before it answers.
  const up = async () =>
    fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
  for (let i = 0; i < 600 && !(await up()); i++) await new Promise((r) => setTimeout(r, 100));
  if (!(await up())) throw new Error(`the resource process in ${cwd} did not start`);
  return {
    url,
    pid: child.pid,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** An organization on Enterprise with an owner signed in; returns the raw session token and the org. */
export async function signedInOwner(sql: ReturnType<typeof createDb>['sql']) {
  const token = generateToken();
  let orgId = '';
  await sql.begin(async (tx) => {
    const [org] =
      await tx`insert into organizations (name, slug) values ('Bench', 'bench-' || gen_random_uuid()) returning id, slug`;
    // (Not in the schema of commits from before organization_slugs, which `compare` may run.)
    const [slugs] = await tx`select to_regclass('organization_slugs') is not null as held`;
    if (slugs?.held)
      await tx`insert into organization_slugs (slug, org_id) values (${org!.slug}, ${org!.id})`;
    const [user] =
      await tx`insert into users (email) values ('bench-' || gen_random_uuid() || '@example.test') returning id`;
    await tx`insert into memberships (org_id, user_id, role_id)
             select ${org!.id}, ${user!.id}, id from roles where name = 'owner' and is_system`;
    await tx`insert into sessions (token_hash, user_id, org_id, origin, expires_at)
             values (${hashToken(token)}, ${user!.id}, ${org!.id}, 'login', now() + interval '1 day')`;
    orgId = org!.id as string;
    // Unlimited plan: the load creates far more items than Free's monthly quota.
    await tx`update subscriptions set plan_id = (select id from plans where code = ${process.env.BENCH_PLAN ?? 'enterprise'})
              where org_id = ${orgId}`;
  });
  return { token, orgId };
}

/** An agent of the organization and an API key for it (acting for the organization's first owner). */
export async function agentKey(sql: ReturnType<typeof createDb>['sql'], orgId: string) {
  const key = generateOrgToken(orgId);
  await sql`
    with owner as (select user_id from memberships where org_id = ${orgId} limit 1),
         agent as (insert into agents (org_id, name) values (${orgId}, 'bench-agent') returning id)
    insert into api_keys (token_hash, org_id, agent_id, user_id, label)
    select ${hashToken(key)}, ${orgId}, agent.id, owner.user_id, 'bench' from agent, owner`;
  return key;
}

/** Bounded load: `connections` clients for `seconds`, on loopback. */
export async function load(
  name: string,
  options: {
    url: string;
    connections?: number;
    seconds?: number;
    headers?: Record<string, string>;
    method?: 'GET' | 'POST';
    body?: string;
    /** Requests a second over all connections (an offered load); unset: as fast as answered. */
    rate?: number;
  },
): Promise<Figures> {
  const result = await autocannon({
    url: options.url,
    connections: options.connections ?? 50,
    duration: options.seconds ?? 10,
    headers: options.headers,
    method: options.method ?? 'GET',
    body: options.body,
    ...(options.rate ? { overallRate: options.rate } : {}),
  });
  return {
    name,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
    statuses: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => [status, count ?? 0]),
    ),
    requests: result.requests.total,
  };
}

/** The value at percentile `p` (0-100) of an ascending list; 0 when it is empty. */
export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

export function table(rows: Figures[]): string {
  const lines = [
    '| scenario | req/s | p50 ms | p99 ms | errors | non-2xx |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows)
    lines.push(`| ${r.name} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} |`);
  return lines.join('\n');
}
