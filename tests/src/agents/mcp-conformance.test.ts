import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';
import {
  CLI_RUN_TIMEOUT_MS,
  credentialProxy,
  details,
  nodeMajor,
  runRequirements,
  sortedStanding,
  standing,
  tally,
} from './conformance-run';
import { AGENT_STANDING } from './conformance-standing';

/**
 * The official MCP conformance CLI (@modelcontextprotocol/conformance 0.2) against POST /mcp with
 * Beckon's agent tools, offline, with the scenarios each revision requires (`--requirements`).
 * The report must be exactly the one conformance-standing.ts records: the scenarios that need the
 * suite's own fixtures fail there (they pass with the fixtures, mcp-conformance-fixtures.test.ts),
 * and every other check of every scenario passes.
 */
const REVISIONS = ['2025-11-25', '2026-07-28'] as const;

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
      `reports the recorded ${revision} standing: all but the scenarios that need the suite's fixtures`,
      async () => {
        const { scenarios, output } = await runRequirements(`${proxyUrl}/mcp`, revision, outputDir);
        const report = standing(scenarios);
        const { passed, failed } = tally(report);
        console.info(`agent tools ${revision}: ${passed} passed / ${failed} failed`);
        expect(report, [...details(scenarios), output].join('\n')).toEqual(
          sortedStanding(AGENT_STANDING[revision]),
        );
      },
      CLI_RUN_TIMEOUT_MS,
    );
  }
});
