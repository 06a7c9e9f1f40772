import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Check, CLI, nodeMajor, standing } from '../agents/conformance-run';
import { freePort, type TestServer } from '../harness';
import { collectOutput } from '../harness/child-output';
import { Browser } from './browser';
import { approveInBrowser, startOAuthServer, ThirdPartyClient } from './flow';

/**
 * The official MCP conformance suite's authorization-server scenarios (`conformance
 * authorization`) against Beckon's authorization server: discovery metadata, then an
 * authorization code grant whose authorization URL the suite prints for a person to open. Here
 * a browser signs a person in with a magic link and allows the client; the suite receives the
 * redirect on its own callback server and exchanges the code. See docs/api.md, "Conformance".
 */

/**
 * The two scenarios take a few seconds; the suite itself would wait 5 minutes for a callback that
 * never comes, so it is stopped first (its report then lacks the grant, and the test fails).
 */
const SUITE_TIMEOUT_MS = 45_000;
const RUN_TIMEOUT_MS = 60_000;

let server: TestServer;
let outputDir: string;

beforeAll(async () => {
  server = await startOAuthServer();
  outputDir = await mkdtemp(path.join(tmpdir(), 'beckon-auth-conformance-'));
});
afterAll(async () => {
  await server?.close();
  if (outputDir) await rm(outputDir, { recursive: true, force: true });
});

/** Runs the suite with `args`; when it prints the authorization URL, `approve` completes it. */
async function runSuite(args: string[], approve: (url: string) => Promise<void>) {
  const dir = await mkdtemp(path.join(outputDir, 'run-'));
  const child = spawn(process.execPath, [CLI, 'authorization', ...args, '-o', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = collectOutput(child);
  const timer = setTimeout(() => child.kill(), SUITE_TIMEOUT_MS);
  const approvals: Promise<void>[] = [];
  let pending = '';
  let failure: unknown;
  child.stdout?.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      // The one line that is a URL on this server: the authorization request to open.
      if (line.startsWith(`${server.authDeps.env.ISSUER_URL}/`)) {
        approvals.push(
          approve(line.trim()).catch((err: unknown) => {
            failure = err;
            child.kill();
          }),
        );
      }
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  await Promise.all(approvals);
  if (failure) throw failure;
  const scenarios = new Map<string, Check[]>();
  for (const run of await readdir(dir)) {
    const name = run.replace(/^authorization-server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, '');
    scenarios.set(name, JSON.parse(await readFile(path.join(dir, run, 'checks.json'), 'utf8')) as Check[]);
  }
  return { code, scenarios, output: output() };
}

/**
 * Registers a client for the suite's callback (a free port), runs both scenarios with its
 * credentials, approves the authorization in a browser; each check's id and status by scenario.
 */
async function runFor(options: { public: boolean }) {
  const issuer = server.authDeps.env.ISSUER_URL;
  const port = await freePort();
  const redirectUri = `http://127.0.0.1:${port}/callback`;
  const client = await ThirdPartyClient.register(issuer, { ...options, name: 'Conformance', redirectUri });
  const secret = client.client.client_secret;
  const browser = new Browser();
  const run = await runSuite(
    [
      ...['--url', issuer, '--client-id', client.client.client_id, '-p', String(port)],
      ...['--resource', server.deps.env.RESOURCE_URL],
      ...(typeof secret === 'string' ? ['--client-secret', secret] : []),
    ],
    async (url) => {
      const email = 'conformance@example.test';
      const location = await approveInBrowser(browser, url, email, (to) => to.startsWith(redirectUri));
      // The suite's callback server takes the redirect, then exchanges the code itself.
      await fetch(location);
    },
  );
  const statuses = Object.fromEntries(
    [...run.scenarios].map(([name, checks]) => [name, checks.map((c) => `${c.id}: ${c.status}`)]),
  );
  const [tokens] = await server.database.sql<{ n: number }[]>`
    select count(*)::int as n from oauth_records
     where model = 'AccessToken' and client_id = ${client.client.client_id}`;
  const report = `${run.output}\n${JSON.stringify([...run.scenarios], null, 2)}`;
  return { ...run, statuses, accessTokens: tokens?.n, report };
}

const METADATA = {
  'authorization-server-metadata-endpoint': [
    'authorization-server-metadata: SUCCESS',
    'authorization-server-metadata-cimd: SUCCESS',
  ],
};

it.skipIf(nodeMajor < 22)(
  'passes every check with a public client: metadata, then a code grant a person approves',
  async () => {
    const run = await runFor({ public: true });
    expect(run.statuses, run.report).toEqual({
      ...METADATA,
      'authorization-code-grant': ['authorization-code-grant: SUCCESS'],
    });
    expect(standing(run.scenarios)).toEqual({
      'authorization-code-grant': [],
      'authorization-server-metadata-endpoint': [],
    });
    expect(run.code).toBe(0);
    // The suite's token is one this server issued, to that client.
    expect(run.accessTokens).toBe(1);
  },
  RUN_TIMEOUT_MS,
);

it.skipIf(nodeMajor < 22)(
  'fails the code grant of a confidential client only because the suite sends no secret',
  async () => {
    const run = await runFor({ public: false });
    // The suite authenticates as `none` whenever the metadata lists it, even with a secret at
    // hand (its selectTokenAuthMethod): the token endpoint rightly refuses a confidential
    // client that does not authenticate, so the exchange gets invalid_client (401).
    expect(run.statuses, run.report).toEqual({
      ...METADATA,
      'authorization-code-grant': ['authorization-code-grant: FAILURE'],
    });
    const grant = run.scenarios.get('authorization-code-grant')?.[0];
    expect(grant?.errorMessage).toBe('Invalid status code: 401');
    expect(run.code).toBe(1);
    expect(run.accessTokens).toBe(0);
  },
  RUN_TIMEOUT_MS,
);
