import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../harness';
import { startScript } from '../harness/production';

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  await Promise.all(
    children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)),
  );
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const health = (port: number) =>
  fetch(`http://127.0.0.1:${port}/health`).then(
    (r) => r.ok,
    () => false,
  );

/** The processes `pid` started, with their command lines (Linux /proc). */
async function childrenOf(pid: number): Promise<{ pid: number; command: string }[]> {
  const listed = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8');
  const pids = listed.trim().split(/\s+/).filter(Boolean).map(Number);
  return Promise.all(
    pids.map(async (child) => ({
      pid: child,
      command: (await readFile(`/proc/${child}/cmdline`, 'utf8')).replaceAll('\0', ' '),
    })),
  );
}

describe('the all-in-one launcher (start:prod)', () => {
  it('starts again, after a back-off and saying so, a process that dies; the others keep serving', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'beckon-restart-'));
    dirs.push(dataDir);
    const [port, authPort, pgPort] = [await freePort(), await freePort(), await freePort()];
    const { DATABASE_URL: _ignored, ...inherited } = process.env;
    const run = startScript('start:prod', {
      env: {
        ...inherited,
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
        DATA_DIR: dataDir,
        PORT: String(port),
        AUTH_PORT: String(authPort),
        EMBEDDED_POSTGRES_PORT: String(pgPort),
        WEB_GATEWAY: 'false',
      },
    });
    children.push(run.child);
    await expect.poll(() => health(port), { timeout: 90_000, interval: 200 }).toBe(true);
    await expect.poll(() => health(authPort), { timeout: 30_000, interval: 200 }).toBe(true);

    const resource = (await childrenOf(run.child.pid!)).find((c) => c.command.includes('resource.mjs'));
    expect(resource).toBeDefined();
    process.kill(resource!.pid, 'SIGKILL');
    await expect.poll(() => health(port), { timeout: 30_000, interval: 100 }).toBe(false);
    // The authorization process was not stopped with it, and the resource process comes back.
    expect(await health(authPort)).toBe(true);
    await expect.poll(() => health(port), { timeout: 60_000, interval: 200 }).toBe(true);
    expect(run.child.exitCode).toBeNull();
    expect(run.output()).toContain('process exited; restarting it');
    const again = (await childrenOf(run.child.pid!)).find((c) => c.command.includes('resource.mjs'));
    expect(again?.pid).not.toBe(resource!.pid);
  }, 180_000);
});
