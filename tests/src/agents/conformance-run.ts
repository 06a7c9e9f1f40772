import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectOutput } from '../harness/child-output';

/** How the official MCP conformance CLI (@modelcontextprotocol/conformance 0.2) is run offline. */
const here = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.join(here, '../../node_modules/@modelcontextprotocol/conformance/dist/index.js');

/** A whole requirement set: some tens of scenarios, each its own connection (longer on a busy machine). */
export const CLI_RUN_TIMEOUT_MS = 120_000;

/** The 0.2 CLI needs Node 22 or later. */
export const nodeMajor = Number(process.versions.node.split('.')[0]);

export type Check = { id: string; status: string; errorMessage?: string };

export const failed = (check: Check) => !['SUCCESS', 'INFO', 'SKIPPED', 'WARNING'].includes(check.status);

/**
 * The CLI's client sends no credentials (it has no option for them): this loopback proxy adds an
 * API key to every request and passes everything else through unchanged.
 */
export async function credentialProxy(target: string, token: string) {
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

/** A revision's whole requirement set against `url`; the checks of each scenario, by scenario. */
export async function runRequirements(url: string, revision: string, outputDir: string) {
  const dir = path.join(outputDir, revision);
  const child = spawn(
    process.execPath,
    [CLI, 'server', '--url', url, '--requirements', revision, '--timeout', '20000', '-o', dir],
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

/** Scenarios with every check passed, and the others. */
export function tally(scenarios: Map<string, Check[]>) {
  const all = [...scenarios];
  return {
    passed: all.filter(([, checks]) => !checks.some(failed)).map(([name]) => name),
    failing: all.filter(([, checks]) => checks.some(failed)).map(([name]) => name),
  };
}
