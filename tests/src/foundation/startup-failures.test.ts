import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, freePort, type TestDatabase } from '../harness';
import { startScript } from '../harness/production';

/**
 * The compiled processes (built by the global setup) started as an operator would, with one
 * thing wrong: one JSON line names the setting to check, and the exit code is 1.
 */
let database: TestDatabase;
let dataDir: string;

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = await mkdtemp(path.join(tmpdir(), 'beckon-startup-'));
});
afterAll(async () => {
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

const { DATABASE_URL: _ignored, ...inherited } = process.env;

async function run(script: string, env: Record<string, string>) {
  const started = startScript(script, {
    env: {
      ...inherited,
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ...env,
    },
  });
  return started;
}

/** Every line written is JSON; returns them parsed. */
function jsonLines(output: string) {
  return output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as { level: number; msg: string; setting?: string };
      } catch {
        throw new Error(`not a JSON line: ${line}`);
      }
    });
}

describe('start-up failures', () => {
  it('an unreachable database: one line naming DATABASE_URL, exit 1', async () => {
    const closedPort = await freePort();
    const started = await run('start:resource', {
      DATABASE_URL: `postgres://beckon:beckon@127.0.0.1:${closedPort}/beckon`,
      PORT: String(await freePort()),
    });
    expect(await started.exited).toBe(1);
    const lines = jsonLines(started.output());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 60, setting: 'DATABASE_URL' });
    expect(lines[0]?.msg).toMatch(
      /^cannot start: cannot reach the database: ECONNREFUSED at 127\.0\.0\.1:\d+\. Check DATABASE_URL$/,
    );
  }, 60_000);

  it('a port in use: one line naming the port setting, exit 1', async () => {
    const blocker = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    try {
      const started = await run('start:auth', { DATABASE_URL: database.url, AUTH_PORT: String(port) });
      expect(await started.exited).toBe(1);
      const lines = jsonLines(started.output());
      const fatal = lines.filter((line) => line.level === 60);
      expect(fatal).toEqual([
        expect.objectContaining({
          setting: 'AUTH_PORT',
          msg: `cannot start: cannot listen: port ${port} is in use by another process. Check AUTH_PORT (or HOST)`,
        }),
      ]);
    } finally {
      blocker.close();
    }
  }, 60_000);

  it('a good start and stop write JSON lines only (the authorization server included)', async () => {
    const port = await freePort();
    const started = await run('start:auth', { DATABASE_URL: database.url, AUTH_PORT: String(port) });
    for (const deadline = Date.now() + 30_000; ; ) {
      if (
        await fetch(`http://127.0.0.1:${port}/health`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      if (Date.now() > deadline || started.child.exitCode !== null) throw new Error(started.output());
      await new Promise((r) => setTimeout(r, 100));
    }
    await fetch(`http://127.0.0.1:${port}/.well-known/openid-configuration`);
    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(0);
    const lines = jsonLines(started.output());
    expect(lines.map((line) => line.msg)).toEqual(expect.arrayContaining(['started', 'stopping', 'stopped']));
  }, 60_000);
});
