import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createBaseApp } from '@beckon/server/http/common';
import { registerMcp } from '@beckon/server/http/mcp';
import { registerMcpOriginCheck } from '@beckon/server/http/mcp-origin';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';
import { FIXTURE_ENGINE } from './conformance-fixtures';
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
import { FIXTURES_STANDING } from './conformance-standing';

/**
 * The official conformance CLI against the suite's own fixtures (conformance-fixtures.ts and the
 * files it imports) served by Beckon's MCP handling: the same POST /mcp code (revisions, headers,
 * sessions, the client's answers to the server's requests, tasks, errors, the Origin check) with
 * the fixtures in place of the agent tools. Every scenario of both requirement sets passes
 * (conformance-standing.ts; docs/api.md, "Conformance").
 */

let server: TestServer;
let fixtures: FastifyInstance;
let proxy: Server;
let proxyUrl: string;
let outputDir: string;

beforeAll(async () => {
  server = await startTestServer();
  const f = new Factories(server.database.db);
  const account = await f.account('owner');
  const key = await f.apiKey(account.org.id, account.user.id);
  fixtures = createBaseApp(server.deps, { name: 'resource' });
  registerMcpOriginCheck(fixtures, server.deps.env);
  registerMcp(fixtures, server.deps, FIXTURE_ENGINE);
  const fixturesUrl = await fixtures.listen({ host: '127.0.0.1', port: 0 });
  const started = await credentialProxy(fixturesUrl, key.token);
  proxy = started.relay;
  proxyUrl = started.url;
  outputDir = await mkdtemp(path.join(tmpdir(), 'beckon-conformance-fixtures-'));
});
afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await fixtures?.close();
  await server?.close();
  if (outputDir) await rm(outputDir, { recursive: true, force: true });
});

describe.skipIf(nodeMajor < 22)(
  "MCP conformance CLI against the suite's fixtures on Beckon's handling",
  () => {
    for (const revision of ['2025-11-25', '2026-07-28'] as const) {
      it(
        `passes every ${revision} scenario`,
        async () => {
          const { scenarios, output } = await runRequirements(`${proxyUrl}/mcp`, revision, outputDir);
          const report = standing(scenarios);
          const { passed, failed } = tally(report);
          console.info(`fixtures ${revision}: ${passed} passed / ${failed} failed`);
          expect(report, [...details(scenarios), output].join('\n')).toEqual(
            sortedStanding(FIXTURES_STANDING[revision]),
          );
        },
        CLI_RUN_TIMEOUT_MS,
      );
    }
  },
);
