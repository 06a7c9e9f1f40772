import type { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { type AddressInfo, createServer, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../faults/own-processes';
import { serviceSettings, startScript } from '../harness/production';

const children: ChildProcess[] = [];
const dirs: string[] = [];

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/**
 * Runs what `pnpm start` runs after its build (`start:prod`: the compiled server/dist/main.mjs,
 * built by the global setup) with DATABASE_URL unset.
 */
function start(env: Record<string, string>, group = false) {
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  const run = startScript('start:prod', {
    env: { ...inherited, NODE_ENV: 'development', LOG_LEVEL: 'warn', ...env },
    group,
  });
  children.push(run.child);
  return run;
}

async function waitFor(url: string, deadline: number): Promise<Response> {
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.ok) return res;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer in time`);
}

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = tcpConnect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe('pnpm start (compiled)', () => {
  it('runs both processes and the gateway on the embedded database and stops everything on SIGTERM', async () => {
    const { env, port, authPort, pgPort, webPort } = await serviceSettings('beckon-start-', dirs);
    const run = start({ ...env, LOG_LEVEL: 'info' });
    const deadline = Date.now() + 90_000;
    // Its one line saying where to go comes once every process listens: each answers at once.
    const readyLine = `ready: dashboard and API on http://127.0.0.1:${webPort}`;
    expect(await eventually(async () => run.output().includes(readyLine), 90_000)).toBe(true);
    expect(await (await fetch(`http://127.0.0.1:${port}/health`)).text()).toBe('ok');
    expect(await (await fetch(`http://127.0.0.1:${authPort}/health`)).text()).toBe('ok');
    expect((await fetch(`http://127.0.0.1:${webPort}/health`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/ready`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${authPort}/ready`)).status).toBe(200);
    expect(await portOpen(pgPort)).toBe(true);

    // The gateway: one origin for the dashboard and both processes.
    const web = `http://127.0.0.1:${webPort}`;
    await waitFor(`${web}/health`, deadline);
    expect((await fetch(`${web}/api/me`)).status).toBe(401);
    const link = await fetch(`${web}/auth/magic-link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'gateway@example.test' }),
    });
    expect(link.status).toBe(200);
    const page = await fetch(`${web}/items/some-client-route`);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);

    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(await portOpen(pgPort)).toBe(false);
    expect(await portOpen(port)).toBe(false);
    expect(await portOpen(webPort)).toBe(false);
    // The build turbo runs first and the start itself wait up to 90 s above: allow them that.
  }, 120_000);

  // A terminal's Ctrl-C is SIGINT to every process of its foreground group, the launcher's children
  // included; closing the terminal, SIGHUP. PostgreSQL, in a group of its own, is told by neither:
  // the launcher stops it once the processes on it are gone.
  it.each([
    ['Ctrl-C is pressed in its terminal', 'SIGINT'],
    ['its terminal closes', 'SIGHUP'],
  ] as const)(
    'stops when %s, without an error: the database stops after the processes on it',
    async (_, signal) => {
      const { env, port, pgPort } = await serviceSettings('beckon-start-', dirs);
      // The job worker's connections (RUN_WORKER, on by default) are open on the database.
      const run = start(env, true);
      await waitFor(`http://127.0.0.1:${port}/ready`, Date.now() + 90_000);
      process.kill(-(run.child.pid as number), signal);
      expect(await run.exited).toBe(0);
      // LOG_LEVEL=warn: a line in the output is a warning or an error (a connection cut under the
      // worker while it stopped, say).
      expect(run.output().trim()).toBe('');
      expect(await portOpen(pgPort)).toBe(false);
    },
    120_000,
  );

  it('leaves nothing behind when killed with SIGKILL: the next start on its DATA_DIR takes over', async () => {
    const { env, port, authPort, pgPort, webPort } = await serviceSettings('beckon-start-', dirs);
    const first = start(env);
    const deadline = Date.now() + 90_000;
    await waitFor(`http://127.0.0.1:${port}/health`, deadline);
    await waitFor(`http://127.0.0.1:${webPort}/health`, deadline);
    first.child.kill('SIGKILL');
    // Its processes see the launcher gone and stop; its PostgreSQL is still running, holding the
    // data directory.
    for (const each of [port, authPort, webPort])
      expect(await eventually(async () => !(await portOpen(each)), deadline - Date.now())).toBe(true);
    expect(await portOpen(pgPort)).toBe(true);

    const second = start(env);
    expect((await waitFor(`http://127.0.0.1:${port}/ready`, deadline)).status).toBe(200);
    await waitFor(`http://127.0.0.1:${authPort}/ready`, deadline);
    // While it runs, a third start on the same DATA_DIR is refused, naming the one that holds it.
    // One line naming DATA_DIR, no stack trace: the same for `pnpm db:migrate`.
    const inUse = `is in use by the Beckon running as process ${second.child.pid}: stop it first`;
    const third = start(env);
    expect(await third.exited).toBe(1);
    expect(third.output()).toContain(inUse);
    expect(third.output()).toContain('"setting":"DATA_DIR"');
    expect(third.output()).not.toContain('    at ');
    const { DATABASE_URL: _unset, ...inherited } = process.env;
    const migrate = startScript('db:migrate', { env: { ...inherited, ...env } });
    expect(await migrate.exited).toBe(1);
    expect(migrate.output().trim()).toMatch(new RegExp(`^\\S+ ${inUse}`));
    expect(migrate.output()).not.toContain('    at ');
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(await portOpen(pgPort)).toBe(false);
  }, 120_000);

  it('stops, naming the port, when a process cannot listen: no restarting it forever', async () => {
    const { env, pgPort } = await serviceSettings('beckon-start-', dirs);
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const run = start({ ...env, PORT: String(port) });
      expect(await run.exited).toBe(1);
      expect(run.output()).toContain(`cannot listen: port ${port} is in use by another process. Check PORT`);
      expect(run.output()).toContain('the resource process could not start: stopping');
      expect(run.output()).not.toContain('restarting it');
      expect(await portOpen(pgPort)).toBe(false);
    } finally {
      taken.close();
    }
  }, 120_000);

  it('refuses to start on a wrong setting, naming the variable', async () => {
    const run = start({ PORT: 'eighty', DATA_DIR: path.join(tmpdir(), 'beckon-never-created') });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain('PORT:');
  });
});
