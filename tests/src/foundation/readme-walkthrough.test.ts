import { type ChildProcess, spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../harness';
import { serviceSettings, startScript } from '../harness/production';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode !== null || !child.pid) continue;
    // The walkthrough's shell leaves its callback receiver running: end its whole process group.
    if (child.spawnargs[0] === 'bash') process.kill(-child.pid, 'SIGKILL');
    else {
      // The service stops as on Ctrl-C, its embedded PostgreSQL with it.
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
}, 60_000);

/** The README's "A first look" shell block, as a reader copies it. */
async function walkthrough(): Promise<string> {
  const readme = await readFile(path.join(REPO, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## A first look'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README.md: no shell block under "A first look"');
  return block;
}

async function waitFor(url: string, deadline: number) {
  while (Date.now() < deadline) {
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer in time`);
}

const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** What the reader's terminal has: not this suite's database or CLI settings. */
const { DATABASE_URL: _ignored, BECKON_URL: _u, BECKON_TOKEN: _t, ...inherited } = process.env;

/**
 * Runs the block once in a shell of its own, answering the CLI's question as me@example.com, and
 * returns what it printed once its receiver has printed the callback; the shell's process group
 * (its receiver with it) is then stopped, so the next run can listen on the same port.
 */
async function runBlock(script: string, ports: { port: number; authPort: number; webPort: number }) {
  const shell = spawn('bash', ['-c', script], { cwd: REPO, env: inherited, detached: true });
  children.push(shell);
  let stdout = '';
  let stderr = '';
  shell.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  shell.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => shell.once('exit', resolve));
  const deadline = Date.now() + 60_000;

  // The CLI step waits for a person: the test answers in their place, as me@example.com.
  let itemId: string | undefined;
  while (!itemId && Date.now() < deadline && shell.exitCode === null) {
    const wait = /waiting for Ship it\? — (\S+) \(item ([0-9a-f-]{36})\)/.exec(stderr);
    if (wait) expect(wait[1]).toBe(`http://127.0.0.1:${ports.webPort}/items/${wait[2]}`);
    itemId = wait?.[2];
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(itemId, `no CLI wait line:\n${stdout}\n${stderr}`).toBeDefined();
  const auth = `http://127.0.0.1:${ports.authPort}`;
  const link = (await (await fetch(`${auth}/auth/magic-link`, json({ email: 'me@example.com' }))).json()) as {
    token: string;
  };
  const session = (await (await fetch(`${auth}/auth/verify?token=${link.token}`)).json()) as {
    token: string;
  };
  const answered = await fetch(`http://127.0.0.1:${ports.port}/api/items/${itemId}/answer`, {
    ...json({ values: { ok: true } }),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${session.token}` },
  });
  expect(answered.status).toBe(200);
  expect(await exited, `${stdout}\n${stderr}`).toBe(0);
  // The receiver runs in the background: its line may come after the shell's last one.
  for (const until = Date.now() + 20_000; !stdout.includes('callback: ') && Date.now() < until; )
    await new Promise((r) => setTimeout(r, 100));
  process.kill(-(shell.pid as number), 'SIGKILL');
  return stdout;
}

describe('README walkthrough', () => {
  it('runs as pasted against the compiled service, and again: every step answers, the callback arrives', async () => {
    const ports = await serviceSettings('beckon-readme-', dirs);
    const { env: settings, port, authPort, webPort } = ports;
    const hookPort = await freePort();
    // As the README starts it (`ALLOW_PRIVATE_DESTINATIONS=true pnpm start`), on free ports.
    const service = startScript('start:prod', {
      env: {
        ...inherited,
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
        ALLOW_PRIVATE_DESTINATIONS: 'true',
        ...settings,
      },
    });
    children.push(service.child);
    const deadline = Date.now() + 90_000;
    await waitFor(`http://127.0.0.1:${port}/ready`, deadline);
    await waitFor(`http://127.0.0.1:${authPort}/ready`, deadline);

    // Only the ports differ from what a reader pastes.
    const script = (await walkthrough())
      .replaceAll('localhost:3000', `127.0.0.1:${port}`)
      .replaceAll('localhost:3001', `127.0.0.1:${authPort}`)
      .replaceAll('localhost:5173', `127.0.0.1:${webPort}`)
      .replaceAll('localhost:9000', `127.0.0.1:${hookPort}`)
      .replaceAll('listen(9000)', `listen(${hookPort})`);
    // A reader runs it again, as people do: the Free plan's one agent is taken the second time.
    for (const run of [1, 2]) {
      const stdout = await runBlock(script, { port, authPort, webPort });
      expect(stdout, `run ${run}`).toMatch(/^ok\{"status":"ready"\}/);
      expect(stdout, `run ${run}`).toContain('"source":"session","role":"owner"');
      expect(stdout, `run ${run}`).toContain('{"status":"answered","response":{"ok":true}}');
      expect(stdout, `run ${run}`).toContain('"status": "answered"');
      expect(stdout, `run ${run}`).toContain('shipping\n');
      expect(stdout, `run ${run}`).toMatch(/callback: \{.*"status":"answered"/);
    }
  }, 240_000);
});
