import { access, cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';
import { REPO_DIR, runProgram } from '../packaging/tools';

/**
 * The Python SDK (python/) installed the way its README says (a venv over Debian's httpx, pip
 * offline) and its pytest suite run against real servers: one with the job worker (deadlines),
 * one whose API allows 3 calls a minute (a real 429).
 */
const PYTHON = '/usr/bin/python3';
let server: TestServer;
let limited: TestServer;
let work: string;

beforeAll(async () => {
  [server, limited] = await Promise.all([
    startTestServer({ worker: true }),
    startTestServer({ env: { RATE_LIMIT_API: '3/1m' } }),
  ]);
  work = await mkdtemp(path.join(tmpdir(), 'beckon-python-'));
});
afterAll(async () => {
  await Promise.all([server?.close(), limited?.close()]);
  if (work) await rm(work, { recursive: true, force: true });
});

/** An organization with a person signed in and an agent's API key. */
async function account(target: TestServer) {
  const f = new Factories(target.database.db);
  const { org, user, token } = await f.account('owner');
  return { personToken: token, agentKey: (await f.apiKey(org.id, user.id)).token };
}

const output = (run: { stdout: string; stderr: string }) => `${run.stdout}\n${run.stderr}`.slice(-12_000);

describe('the Python SDK', () => {
  it('installs offline into a venv and passes its pytest suite against a real server', async () => {
    const prerequisites = await runProgram(PYTHON, ['-c', 'import httpx, pytest, mypy']);
    expect(
      prerequisites.code,
      `Debian's python3-httpx, python3-pytest, python3-venv and mypy are needed (see .ci/run):\n${output(prerequisites)}`,
    ).toBe(0);

    // Built from a copy, so the checkout gets no build leftovers.
    const source = path.join(work, 'source');
    await cp(path.join(REPO_DIR, 'python'), source, { recursive: true });
    const venv = path.join(work, 'venv');
    const created = await runProgram(PYTHON, ['-m', 'venv', '--system-site-packages', venv]);
    expect(created.code, `python3-venv is needed (see .ci/run):\n${output(created)}`).toBe(0);
    const python = path.join(venv, 'bin', 'python');
    const pipArgs = ['install', '--no-deps', '--no-build-isolation', '--no-index', source];
    const installed = await runProgram(python, ['-m', 'pip', ...pipArgs]);
    expect(installed.code, output(installed)).toBe(0);
    const where = await runProgram(python, [
      '-c',
      'import beckon, os; print(os.path.dirname(beckon.__file__))',
    ]);
    expect(where.stdout.trim().startsWith(venv), output(where)).toBe(true);
    await access(path.join(where.stdout.trim(), 'py.typed'));

    const [agent, other, throttled] = await Promise.all([account(server), account(server), account(limited)]);
    const env = {
      ...process.env,
      PYTHONDONTWRITEBYTECODE: '1',
      BECKON_URL: server.resource.baseUrl,
      BECKON_TOKEN: agent.agentKey,
      BECKON_SESSION_TOKEN: agent.personToken,
      BECKON_OTHER_TOKEN: other.agentKey,
      BECKON_LIMITED_URL: limited.resource.baseUrl,
      BECKON_LIMITED_TOKEN: throttled.agentKey,
    };
    const tests = path.join(REPO_DIR, 'python', 'tests');
    const run = await runProgram(python, ['-m', 'pytest', tests, '-q', '-rfEw', '-p', 'no:cacheprovider'], {
      cwd: work,
      env,
      timeoutMs: 540_000,
    });
    expect(run.code, output(run)).toBe(0);
    expect(run.stdout).toMatch(/\d+ passed/);
  }, 600_000);
});
