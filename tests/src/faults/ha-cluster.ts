import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { ensureDatabase, withDatabase } from '@beckon/db';
import { migrateAll } from '@beckon/server/database';
import postgres from 'postgres';
import { freePort } from '../harness';
import { collectOutput } from '../harness/child-output';
import { haproxyConfig, patroniConfig } from './ha-config';
import { eventually } from './own-processes';

/**
 * A high-availability PostgreSQL of the test's own, built from Debian's packages the way
 * docs/deployment.md recommends: one etcd member, Patroni-managed PostgreSQL 15 nodes with
 * synchronous replication, and HAProxy sending connections to whichever node Patroni's REST API
 * calls the primary. Everything listens on 127.0.0.1, on ports of the test's block, with its data
 * under one temporary folder; the machine's own PostgreSQL is never touched.
 *
 * Timings are short so that a failover fits a test (ha-config.ts).
 */
export const HA_TOOLS = {
  etcd: '/usr/bin/etcd',
  patroni: '/usr/bin/patroni',
  haproxy: '/usr/sbin/haproxy',
  postgres: '/usr/lib/postgresql/15/bin/postgres',
};

/** The tools above that this machine lacks (`.ci/run` installs them). */
export const missingHaTools = () =>
  Object.entries(HA_TOOLS)
    .filter(([, file]) => !existsSync(file))
    .map(([name]) => name);

type Node = { name: string; pgPort: number; apiPort: number; dataDir: string; patroni: ChildProcess };

type Member = { name: string; role: string; state: string };

export type HaCluster = {
  /** The migrated `beckon` database, through HAProxy. */
  url: string;
  /** The name of the node holding the leader key now. */
  primary: () => Promise<string>;
  /**
   * Loses the primary's machine: SIGKILL to its Patroni and to its PostgreSQL (the postmaster
   * and every backend), so nothing releases the leader key: it expires.
   */
  killPrimary: () => Promise<string>;
  /** Every process's output, for a failure message. */
  output: () => string;
  close: () => Promise<void>;
};

/** PostgreSQL refuses to run as root: as root, Patroni (and so PostgreSQL) runs as `postgres`. */
const asRoot = userInfo().uid === 0;

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const passwd = await readFile('/etc/passwd', 'utf8');
  const fields = passwd
    .split('\n')
    .map((line) => line.split(':'))
    .find((entry) => entry[0] === 'postgres');
  if (!fields) throw new Error('the postgres OS user is missing (the postgresql-15 package creates it)');
  return { uid: Number(fields[2]), gid: Number(fields[3]) };
}

/**
 * Whether HAProxy sends connections to the primary alone: it counts every server up until its
 * checks fail twice, so right after it starts a connection may still land on a replica (where a
 * database just created may not be yet). Several connections in a row, over longer than two
 * checks, must all reach a node that is not in recovery.
 */
async function onlyThePrimary(url: string): Promise<boolean> {
  for (let i = 0; i < 6; i++) {
    const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} });
    try {
      const [row] = await sql<{ replica: boolean }[]>`select pg_is_in_recovery() as replica`;
      if (row?.replica !== false) return false;
    } catch {
      return false;
    } finally {
      await sql.end({ timeout: 1 });
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return true;
}

/** Starts the cluster, waits for a primary with a synchronous standby, and migrates `beckon`. */
export async function startHaCluster(nodeCount = 2): Promise<HaCluster> {
  const dir = await mkdtemp(path.join(tmpdir(), 'beckon-ha-'));
  const ids = asRoot ? await postgresIds() : null;
  if (ids) await chown(dir, ids.uid, ids.gid);
  const outputs: [string, () => string][] = [];
  const children: ChildProcess[] = [];
  const start = (name: string, command: string, args: string[], asPostgres = false) => {
    const [file, argv] =
      asPostgres && ids
        ? ['setpriv', [`--reuid=${ids.uid}`, `--regid=${ids.gid}`, '--init-groups', '--', command, ...args]]
        : [command, args];
    const child = spawn(file, argv, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    outputs.push([name, collectOutput(child)]);
    return child;
  };
  const output = () => outputs.map(([name, text]) => `--- ${name}\n${text()}`).join('\n');

  const close = async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
          }),
      ),
    );
    await rm(dir, { recursive: true, force: true });
  };

  /**
   * Starts a process on ports picked now, trying again on others when it exits before it is
   * ready: a port free when picked can be taken by then (by the source port of a connection).
   */
  const startOnFreePorts = async (
    name: string,
    portCount: number,
    launch: (ports: number[]) => Promise<ChildProcess>,
    ready: (ports: number[]) => Promise<boolean>,
  ) => {
    for (let attempt = 1; ; attempt++) {
      const ports: number[] = [];
      for (let i = 0; i < portCount; i++) ports.push(await freePort());
      const child = await launch(ports);
      const exited = () => child.exitCode !== null || child.signalCode !== null;
      const up = await eventually(async () => exited() || (await ready(ports)), 60_000);
      if (up && !exited()) return { child, ports };
      if (attempt === 3 || !exited()) throw new Error(`${name} did not start`);
    }
  };
  const answers = (url: string) =>
    fetch(url).then(
      () => true,
      () => false,
    );

  try {
    const {
      ports: [etcdPort = 0],
    } = await startOnFreePorts(
      'etcd',
      2,
      async ([client, peer]) =>
        start('etcd', HA_TOOLS.etcd, [
          '--name=etcd',
          `--data-dir=${path.join(dir, 'etcd')}`,
          `--listen-client-urls=http://127.0.0.1:${client}`,
          `--advertise-client-urls=http://127.0.0.1:${client}`,
          `--listen-peer-urls=http://127.0.0.1:${peer}`,
          `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
          `--initial-cluster=etcd=http://127.0.0.1:${peer}`,
          '--logger=zap',
          '--log-level=warn',
        ]),
      ([client]) => answers(`http://127.0.0.1:${client}/health`),
    );

    const nodes: Node[] = [];
    for (let i = 1; i <= nodeCount; i++) {
      const name = `pg${i}`;
      const dataDir = path.join(dir, name);
      const config = path.join(dir, `${name}.yml`);
      const { child, ports } = await startOnFreePorts(
        name,
        2,
        async ([pgPort = 0, apiPort = 0]) => {
          await writeFile(
            config,
            patroniConfig(
              { name, pgPort, apiPort, dataDir },
              { dir, etcdPort, binDir: path.dirname(HA_TOOLS.postgres) },
            ),
          );
          if (ids) await chown(config, ids.uid, ids.gid);
          return start(name, HA_TOOLS.patroni, [config], true);
        },
        ([, apiPort]) => answers(`http://127.0.0.1:${apiPort}/liveness`),
      );
      nodes.push({ name, pgPort: ports[0] ?? 0, apiPort: ports[1] ?? 0, dataDir, patroni: child });
    }
    const members = async (): Promise<Member[]> => {
      for (const node of nodes) {
        if (node.patroni.exitCode !== null || node.patroni.signalCode !== null) continue;
        const body = await fetch(`http://127.0.0.1:${node.apiPort}/cluster`).then(
          (r) => (r.ok ? (r.json() as Promise<{ members: Member[] }>) : null),
          () => null,
        );
        if (body) return body.members;
      }
      return [];
    };
    const replicating = async () => {
      const all = await members();
      return (
        all.some((m) => m.role === 'leader' && m.state === 'running') &&
        all.some((m) => m.role === 'sync_standby' && m.state === 'running')
      );
    };
    if (!(await eventually(replicating, 90_000)))
      throw new Error(`no primary with a synchronous standby: ${JSON.stringify(await members())}`);

    const configFile = path.join(dir, 'haproxy.cfg');
    const {
      ports: [proxyPort = 0],
    } = await startOnFreePorts(
      'haproxy',
      1,
      async ([port = 0]) => {
        await writeFile(configFile, haproxyConfig(port, nodes));
        return start('haproxy', HA_TOOLS.haproxy, ['-db', '-f', configFile]);
      },
      async ([port]) =>
        (await onlyThePrimary(`postgres://postgres:postgres@127.0.0.1:${port}/postgres`)) &&
        (await ensureDatabase(`postgres://postgres:postgres@127.0.0.1:${port}/postgres`, 'beckon').then(
          () => true,
          () => false,
        )),
    );
    const serverUrl = `postgres://postgres:postgres@127.0.0.1:${proxyPort}/postgres`;
    const url = withDatabase(serverUrl, 'beckon');
    await migrateAll(url);

    const primary = async () => {
      const leader = (await members()).find((m) => m.role === 'leader');
      if (!leader) throw new Error('the cluster has no leader');
      return leader.name;
    };
    const killPrimary = async () => {
      const name = await primary();
      const node = nodes.find((n) => n.name === name);
      if (!node) throw new Error(`unknown node ${name}`);
      const postmaster = Number(
        (await readFile(path.join(node.dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0],
      );
      const backends = (
        await readFile(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8').catch(() => '')
      )
        .split(' ')
        .filter(Boolean)
        .map(Number);
      node.patroni.kill('SIGKILL');
      for (const pid of [postmaster, ...backends]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
      return name;
    };
    return { url, primary, killPrimary, output, close };
  } catch (error) {
    const text = output();
    await close();
    throw new Error(`the high-availability cluster did not start: ${String(error)}\n${text}`);
  }
}
