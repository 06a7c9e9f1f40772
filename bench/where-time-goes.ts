import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { Sql } from '@beckon/db';

/** Which group of the machine's processes one is in (the benchmarked server, this process, ...). */
const groupOf = (pid: number, comm: string, serverPid: number | undefined) =>
  pid === serverPid
    ? 'server'
    : pid === process.pid
      ? 'load generator'
      : comm === 'postgres'
        ? 'postgres'
        : comm === 'pgbench'
          ? 'pgbench'
          : 'other';

/** CPU ticks (1/100 s) used so far by each group of processes, from /proc. */
function cpuTicks(serverPid: number | undefined) {
  const used = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const group = groupOf(Number(entry), comm, serverPid);
      used.set(group, (used.get(group) ?? 0) + Number(fields[11]) + Number(fields[12]));
      // Processes that ended are in their parent's time of children: PostgreSQL's sessions (pgbench's,
      // when it stops) and this process's pgbench runs.
      const ended = Number(fields[13]) + Number(fields[14]);
      const parent = comm === 'postgres' ? group : group === 'load generator' ? 'pgbench' : null;
      if (parent) used.set(parent, (used.get(parent) ?? 0) + ended);
    } catch {
      // The process ended while being read.
    }
  }
  return used;
}

/**
 * Runs `run` and adds the milliseconds of CPU each group of processes used meanwhile to `used`
 * (the group names of groupOf: server, postgres, load generator, pgbench, other).
 */
export async function measuringCpu<T>(
  serverPid: number | undefined,
  used: Map<string, number>,
  run: () => Promise<T>,
): Promise<T> {
  const before = cpuTicks(serverPid);
  try {
    return await run();
  } finally {
    // A tick is 10 ms.
    for (const [group, ticks] of cpuTicks(serverPid))
      used.set(group, (used.get(group) ?? 0) + (ticks - (before.get(group) ?? 0)) * 10);
  }
}

/**
 * Runs `run`, which answers how many operations it made, and gives the milliseconds of CPU each of
 * `groups` (groupOf's names) took an operation, in the order named.
 */
export async function cpuPerOperation(
  serverPid: number | undefined,
  groups: readonly string[],
  run: () => Promise<number>,
) {
  const used = new Map<string, number>();
  const count = Math.max(1, await measuringCpu(serverPid, used, run));
  return { count, ms: groups.map((group): [string, number] => [group, (used.get(group) ?? 0) / count]) };
}

/**
 * Where the time of a measured load goes: what PostgreSQL's busy sessions wait on (sampled from
 * `pg_stat_activity` every 20 ms) and how the machine's CPU is shared between the database, the
 * benchmarked server and the load generator (this process), from /proc. One sampler collects over
 * every `during` call, so alternating rounds add up to one picture of the measured side.
 */
export function timeSampler(sql: Sql, serverPid: number | undefined) {
  const waits = new Map<string, number>();
  const cpu = new Map<string, number>();
  const wal = { bytes: 0, records: 0, fpi: 0, commits: 0 };
  let wall = 0;

  /** The database's WAL written and transactions committed so far (all sessions). */
  const walNow = async () => {
    const [row] = await sql<{ bytes: number; records: number; fpi: number; commits: number }[]>`
      select w.wal_bytes::float8 as bytes, w.wal_records::float8 as records, w.wal_fpi::float8 as fpi,
             (select xact_commit::float8 from pg_stat_database where datname = current_database()) as commits
        from pg_stat_wal w`;
    return row!;
  };

  /** Statement statistics (BENCH_PG_STATEMENTS), counted from the first measured round. */
  const statements = process.env.BENCH_PG_STATEMENTS
    ? sql`select pg_stat_statements_reset()`.then(() => true)
    : Promise.resolve(false);

  async function during<T>(run: () => Promise<T>): Promise<T> {
    await statements;
    let running = true;
    const sampling = (async () => {
      while (running) {
        const rows = await sql<{ wait: string; n: number }[]>`
          select coalesce(wait_event_type || ': ' || wait_event, 'on CPU') as wait, count(*)::int as n
            from pg_stat_activity
           where backend_type = 'client backend' and state = 'active' and pid <> pg_backend_pid()
           group by 1`;
        for (const row of rows) waits.set(row.wait, (waits.get(row.wait) ?? 0) + row.n);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const perf = recordPerf();
    const walBefore = await walNow();
    const started = Date.now();
    try {
      return await measuringCpu(serverPid, cpu, run);
    } finally {
      wall += (Date.now() - started) / 1000;
      running = false;
      await Promise.all([sampling, perf?.()]);
      const walAfter = await walNow();
      for (const key of Object.keys(wal) as (keyof typeof wal)[]) wal[key] += walAfter[key] - walBefore[key];
    }
  }

  /**
   * The busiest waits (share of sampled busy sessions), each group's CPU in cores and, with
   * BENCH_PG_STATEMENTS, the statements that took the most time (pgbench's left out).
   */
  async function report(name: string): Promise<string[]> {
    const sampled = [...waits.values()].reduce((sum, n) => sum + n, 0) || 1;
    const top = [...waits].sort((a, b) => b[1] - a[1]).slice(0, 5);
    const cores = [...cpu].filter(([, used]) => used > 0).sort((a, b) => b[1] - a[1]);
    const lines = [
      `${name}, busy PostgreSQL sessions: ${top.map(([wait, n]) => `${wait} ${((n / sampled) * 100).toFixed(0)} %`).join(', ')}`,
      `${name}, CPU in cores: ${cores.map(([group, used]) => `${group} ${(used / 1000 / wall).toFixed(2)}`).join(', ')}`,
      `${name}, a second: ${Math.round(wal.commits / wall)} commits, ${Math.round(wal.records / wall)} WAL records (${Math.round(wal.fpi / wall)} full pages), ${Math.round(wal.bytes / 1024 / wall)} KiB of WAL`,
    ];
    if (!(await statements)) return lines;
    const rows = await sql<{ ms: number; calls: number; plans: number; planMs: number; query: string }[]>`
      select round(total_exec_time)::int as ms, calls::int, plans::int, round(total_plan_time)::int as "planMs",
             left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 140) as query
        from pg_stat_statements
       where query not like '%pgbench_%' and query not like '%pg_stat_%'
       order by total_exec_time + total_plan_time desc limit 8`;
    const scans = await sql<{ table: string; scans: number; rows: number }[]>`
      select schemaname || '.' || relname as table, seq_scan::int as scans, seq_tup_read::bigint::float8 as rows
        from pg_stat_all_tables
       where seq_tup_read > 0 and relname not like 'pgbench_%' and schemaname not in ('pg_catalog', 'information_schema')
       order by seq_tup_read desc limit 5`;
    return [
      ...lines,
      ...rows.map(
        (r) =>
          `${name}, statement: ${r.ms} ms in ${r.calls} calls, planned ${r.plans} times in ${r.planMs} ms: ${r.query}`,
      ),
      ...scans.map(
        (r) => `${name}, sequential scans since start: ${r.table} ${r.scans} scans, ${r.rows} rows read`,
      ),
    ];
  }

  return { during, report };
}

let perfRecords = 0;

/**
 * With BENCH_PERF=<dir>: a system-wide `perf record` (call graphs) of each measured part, one
 * file each, to read with `perf report -i <file> --sort comm,dso,sym`. Returns its stop.
 */
function recordPerf(): (() => Promise<void>) | undefined {
  const dir = process.env.BENCH_PERF;
  if (!dir) return undefined;
  perfRecords += 1;
  const output = `${dir}/perf-${process.pid}-${perfRecords}.data`;
  const perf = spawn('perf', ['record', '-a', '-g', '-F', '499', '-o', output], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => {
    perf.on('exit', () => resolve());
    perf.on('error', () => resolve());
  });
  return () => {
    perf.kill('SIGINT');
    return exited;
  };
}
