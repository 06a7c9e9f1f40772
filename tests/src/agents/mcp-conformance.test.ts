import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';
import { collectOutput } from '../harness/child-output';

/**
 * The official MCP conformance CLI (@modelcontextprotocol/conformance 0.2) against POST /mcp,
 * offline, with the scenarios each revision requires (`--requirements`). Scenarios that call the
 * suite's own fixtures (tools, resources and prompts named `test_*`, `slow_compute`, …, which a
 * Beckon server does not offer) cannot pass here: they are listed below, and every other check of
 * every scenario must succeed.
 */
const REVISIONS = ['2025-11-25', '2026-07-28'] as const;

/** Scenarios that need the suite's fixture tools, resources or prompts (or completions, logging). */
const NEEDS_FIXTURES = new Set([
  'completion-complete',
  'json-schema-2020-12',
  'logging-set-level',
  'http-custom-header-server-validation',
  ...['simple-text', 'image', 'audio', 'embedded-resource', 'mixed-content', 'error', 'with-progress'].map(
    (name) => `tools-call-${name}`,
  ),
  ...['with-logging', 'sampling', 'elicitation'].map((name) => `tools-call-${name}`),
  'elicitation-sep1034-defaults',
  'elicitation-sep1330-enums',
  ...['read-text', 'read-binary', 'templates-read', 'subscribe', 'unsubscribe'].map(
    (name) => `resources-${name}`,
  ),
  ...['simple', 'with-args', 'embedded-resource', 'with-image'].map((name) => `prompts-get-${name}`),
  ...[
    'basic-elicitation',
    'basic-sampling',
    'basic-list-roots',
    'request-state',
    'multiple-input-requests',
    'multi-round',
    'missing-input-response',
    'non-tool-request',
    'result-type',
    'tampered-state',
    'capability-check',
  ].map((name) => `input-required-result-${name}`),
  ...[
    'lifecycle',
    'capability-negotiation',
    'wire-fields',
    'request-state-removal',
    'mrtr-input',
    'request-headers',
    'dispatch-and-envelope',
    'required-task-error',
    'mrtr-composition',
  ].map((name) => `tasks-${name}`),
]);
/** Beckon offers resources and prompts from 2026-07-28 on: earlier, listing them is for fixtures. */
const NEEDS_FIXTURES_BEFORE_2026 = new Set(['resources-list', 'prompts-list']);
/** Checks of general scenarios that probe with a fixture tool (`test_missing_capability`, …). */
const FIXTURE_CHECKS = new Set([
  'sep-2575-server-rejects-undeclared-capability',
  'sep-2575-missing-capability-http-400',
  'sep-2575-http-server-no-independent-requests-on-stream',
  'sep-2575-server-no-log-without-loglevel',
]);
/** At 2025-11-25 without sessions: the suite wants a session id for these stream checks. */
const STATELESS_BY_DESIGN = new Set(['server-sse-multiple-streams-session', 'server-sse-polling-session']);
/** Scenarios Beckon's own handling must pass, whatever else the requirements list holds. */
const MUST_RUN = {
  '2025-11-25': ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'],
  '2026-07-28': [
    'server-stateless',
    'tools-list',
    'resources-list',
    'prompts-list',
    'caching',
    'sep-2164-resource-not-found',
    'dns-rebinding-protection',
    'http-header-validation',
    'input-required-result-unsupported-methods',
    'input-required-result-validate-input',
  ],
};

const here = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.join(here, '../../node_modules/@modelcontextprotocol/conformance/dist/index.js');

let server: TestServer;
let proxy: Server;
let proxyUrl: string;
let outputDir: string;

/**
 * The CLI's client sends no credentials (it has no option for them): this loopback proxy adds the
 * agent's API key to every request and passes everything else through unchanged.
 */
async function credentialProxy(target: string, token: string) {
  const relay = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string' && name !== 'host' && name !== 'content-length') headers.set(name, value);
    }
    headers.set('authorization', `Bearer ${token}`);
    const answer = await fetch(`${target}${request.url}`, {
      method: request.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    // Streamed: a subscriptions/listen answer stays open.
    response.on('close', () => void answer.body?.cancel().catch(() => {}));
    if (answer.body) for await (const chunk of answer.body) response.write(chunk);
    response.end();
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const address = relay.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return { relay, url: `http://127.0.0.1:${address.port}` };
}

beforeAll(async () => {
  server = await startTestServer();
  const f = new Factories(server.database.db);
  const account = await f.account('owner');
  const key = await f.apiKey(account.org.id, account.user.id);
  const started = await credentialProxy(server.resource.baseUrl, key.token);
  proxy = started.relay;
  proxyUrl = started.url;
  outputDir = await mkdtemp(path.join(tmpdir(), 'beckon-conformance-'));
});
afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await server?.close();
  if (outputDir) await rm(outputDir, { recursive: true, force: true });
});

type Check = { id: string; status: string; errorMessage?: string };

/** The whole requirement set of a revision; the checks of each scenario, by scenario. */
async function runRequirements(revision: string) {
  const dir = path.join(outputDir, revision);
  const child = spawn(
    process.execPath,
    [CLI, 'server', '--url', `${proxyUrl}/mcp`, '--requirements', revision, '--timeout', '20000', '-o', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output = collectOutput(child);
  await new Promise<number | null>((resolve) => child.on('close', resolve));
  const scenarios = new Map<string, Check[]>();
  for (const run of await readdir(dir)) {
    const name = run.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, '');
    scenarios.set(name, JSON.parse(await readFile(path.join(dir, run, 'checks.json'), 'utf8')) as Check[]);
  }
  return { scenarios, output: output() };
}

const failed = (check: Check) => !['SUCCESS', 'INFO', 'SKIPPED', 'WARNING'].includes(check.status);

/** The 0.2 CLI needs Node 22 or later. */
const nodeMajor = Number(process.versions.node.split('.')[0]);

describe.skipIf(nodeMajor < 22)('MCP conformance CLI against POST /mcp', () => {
  for (const revision of REVISIONS) {
    it(`passes the ${revision} requirements except what needs the suite's fixtures`, async () => {
      const { scenarios, output } = await runRequirements(revision);
      for (const name of MUST_RUN[revision]) expect(scenarios.has(name), `${name}\n${output}`).toBe(true);
      const failures = [...scenarios].flatMap(([name, checks]) =>
        NEEDS_FIXTURES.has(name) || (revision !== '2026-07-28' && NEEDS_FIXTURES_BEFORE_2026.has(name))
          ? []
          : checks
              .filter(failed)
              .filter((check) => !FIXTURE_CHECKS.has(check.id) && !STATELESS_BY_DESIGN.has(check.id))
              .map((check) => `${name}: ${check.id}: ${check.errorMessage ?? check.status}`),
      );
      expect(failures, output).toEqual([]);
      const passed = [...scenarios.values()].flat().filter((check) => check.status === 'SUCCESS');
      expect(passed.length).toBeGreaterThan(revision === '2026-07-28' ? 60 : 20);
    });
  }
});
