import { spawnSync } from 'node:child_process';

/**
 * TPS of pgbench's built-in TPC-B-like script against the same PostgreSQL, same client count:
 * the yardstick for "a write transaction of ours". Null when pgbench is not installed
 * (Debian: apt-get install postgresql-client).
 */
export function pgbenchTps(url: string, clients: number, seconds: number): number | null {
  const which = spawnSync('pgbench', ['--version'], { encoding: 'utf8' });
  if (which.status !== 0) return null;
  const init = spawnSync('pgbench', ['-i', '-q', '-s', '10', url], { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`pgbench -i failed: ${init.stderr}`);
  const run = spawnSync('pgbench', ['-c', String(clients), '-j', '2', '-T', String(seconds), url], {
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`pgbench failed: ${run.stderr}`);
  const match = /tps = ([\d.]+)/.exec(run.stdout);
  return match ? Math.round(Number(match[1])) : null;
}
