import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectOutput } from '../harness/child-output';

/** How the official MCP conformance CLI (@modelcontextprotocol/conformance 0.2) is run offline. */
const here = path.dirname(fileURLToPath(import.meta.url));
export const CLI = path.join(here, '../../node_modules/@modelcontextprotocol/conformance/dist/index.js');

/** A whole requirement set: some tens of scenarios, each its own connection (longer on a busy machine). */
export const CLI_RUN_TIMEOUT_MS = 120_000;

/** The 0.2 CLI needs Node 22 or later. */
export const nodeMajor = Number(process.versions.node.split('.')[0]);

export type Check = { id: string; status: string; errorMessage?: string };

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

/** A check that does not pass: FAILURE, WARNING or ERROR (INFO and SKIPPED report, they pass). */
const notPassed = (check: Check) => !['SUCCESS', 'INFO', 'SKIPPED'].includes(check.status);

/** Each scenario (sorted by name) with the ids of its checks that do not pass (sorted). */
export const standing = (scenarios: Map<string, Check[]>): Record<string, string[]> =>
  Object.fromEntries(
    [...scenarios.keys()].sort().map((name) => [
      name,
      (scenarios.get(name) ?? [])
        .filter(notPassed)
        .map((check) => check.id)
        .sort(),
    ]),
  );

/** The same with the names sorted, to compare with a table of conformance-standing.ts. */
export const sortedStanding = (table: Record<string, string[]>): Record<string, string[]> =>
  Object.fromEntries(
    Object.keys(table)
      .sort()
      .map((name) => [name, [...(table[name] ?? [])].sort()]),
  );

/** How many scenarios pass every check, and how many do not. */
export function tally(report: Record<string, string[]>) {
  const all = Object.values(report);
  return {
    passed: all.filter((ids) => ids.length === 0).length,
    failed: all.filter((ids) => ids.length > 0).length,
  };
}

/** The checks that do not pass, with the CLI's messages (shown when the standing differs). */
export const details = (scenarios: Map<string, Check[]>) =>
  [...scenarios].flatMap(([name, checks]) =>
    checks.filter(notPassed).map((check) => `${name}: ${check.id}: ${check.errorMessage ?? check.status}`),
  );
