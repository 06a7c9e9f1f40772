import { spawnSync } from 'node:child_process';

/**
 * TPS of pgbench's built-in TPC-B-like script against the same PostgreSQL, same client count:
 * the yardstick for "a write transaction of ours" (after pgbenchInit).
 */
export function pgbenchTps(url: string, clients: number, seconds: number): number {
  const run = spawnSync('pgbench', ['-c', String(clients), '-j', '2', '-T', String(seconds), url], {
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`pgbench failed: ${run.stderr}`);
  const match = /tps = ([\d.]+)/.exec(run.stdout);
  if (!match) throw new Error(`pgbench printed no TPS: ${run.stdout}`);
  return Math.round(Number(match[1]));
}

/** Creates pgbench's tables (scale 10); false when pgbench is not installed (Debian: postgresql-client). */
export function pgbenchInit(url: string): boolean {
  if (spawnSync('pgbench', ['--version'], { encoding: 'utf8' }).status !== 0) return false;
  const init = spawnSync('pgbench', ['-i', '-q', '-s', '10', url], { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`pgbench -i failed: ${init.stderr}`);
  return true;
}
