import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';
import { CLI_RUN_TIMEOUT_MS, credentialProxy, failed, nodeMajor, runRequirements } from './conformance-run';

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

let server: TestServer;
let proxy: Server;
let proxyUrl: string;
let outputDir: string;

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

describe.skipIf(nodeMajor < 22)('MCP conformance CLI against POST /mcp', () => {
  for (const revision of REVISIONS) {
    it(
      `passes the ${revision} requirements except what needs the suite's fixtures`,
      async () => {
        const { scenarios, output } = await runRequirements(`${proxyUrl}/mcp`, revision, outputDir);
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
      },
      CLI_RUN_TIMEOUT_MS,
    );
  }
});
