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
 * The official MCP conformance CLI (@modelcontextprotocol/conformance) against POST /mcp, for its
 * server scenarios that apply to a server with Beckon's tools: the others need fixed test tools
 * (`test_simple_text`, …), prompts, resources, logging, sampling or elicitation, which Beckon does
 * not offer, and `dns-rebinding-protection` is for unauthenticated localhost servers. 0.1.16 has
 * no task scenario yet (tasks are proven in mcp-tasks.test.ts).
 */
const SCENARIOS = ['server-initialize', 'ping', 'tools-list'];

const here = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.join(here, '../../node_modules/@modelcontextprotocol/conformance/dist/index.js');
const NODE20_FS = path.join(here, 'conformance/node20-fs.mjs');

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
    response.end(Buffer.from(await answer.arrayBuffer()));
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

async function runScenario(scenario: string) {
  const major = Number(process.versions.node.split('.')[0]);
  const child = spawn(
    process.execPath,
    [
      ...(major < 22 ? ['--import', NODE20_FS] : []),
      CLI,
      'server',
      '--url',
      `${proxyUrl}/mcp`,
      '--scenario',
      scenario,
      '--output-dir',
      path.join(outputDir, scenario),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output = collectOutput(child);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const [run] = await readdir(path.join(outputDir, scenario));
  const checks = JSON.parse(
    await readFile(path.join(outputDir, scenario, run!, 'checks.json'), 'utf8'),
  ) as Array<{ id: string; status: string; errorMessage?: string }>;
  return { code, checks, output: output() };
}

describe('MCP conformance CLI against POST /mcp', () => {
  for (const scenario of SCENARIOS) {
    it(`passes ${scenario}`, async () => {
      const { code, checks, output } = await runScenario(scenario);
      expect(checks.length, output).toBeGreaterThan(0);
      expect(
        checks.filter((check) => check.status !== 'SUCCESS' && check.status !== 'INFO'),
        output,
      ).toEqual([]);
      expect(code, output).toBe(0);
    });
  }
});
