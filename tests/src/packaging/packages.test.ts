import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { publint } from 'publint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';
import { bundleForBrowser, inChromium } from './browser-check';
import { CJS_SCRIPT, ESM_SCRIPT, MISSPELLED_USE, TYPED_USE, tsconfig } from './scripts';
import { buildPackages, npmInstall, pack, REPO_DIR, runProgram, tsc } from './tools';

/**
 * @beckon/sdk and @beckon/mcp as a stranger gets them: built, packed, and installed with npm into
 * projects outside the workspace (their dependencies from the registry), then used with plain
 * `node` against a running Beckon.
 */
const require = createRequire(import.meta.url);

let work: string;
let project: string;
let sdkOnly: string;
let tarballs: { sdk: string; mcp: string };
let server: TestServer;
let person: HttpClient;
let agentKey: string;

beforeAll(async () => {
  await buildPackages();
  work = await mkdtemp(path.join(tmpdir(), 'beckon-stranger-'));
  await mkdir(path.join(work, 'tarballs'));
  tarballs = {
    sdk: await pack('sdk', path.join(work, 'tarballs')),
    mcp: await pack('mcp', path.join(work, 'tarballs')),
  };
  project = path.join(work, 'app');
  sdkOnly = path.join(work, 'sdk-only');
  for (const dir of [project, sdkOnly]) {
    await mkdir(dir);
    await writeFile(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: path.basename(dir), private: true }),
    );
  }
  await npmInstall(project, [tarballs.sdk, tarballs.mcp]);
  await npmInstall(sdkOnly, [tarballs.sdk]);

  server = await startTestServer();
  const f = new Factories(server.database.db);
  const account = await f.account('owner');
  person = server.resource.as(account.token);
  agentKey = (await f.apiKey(account.org.id, account.user.id)).token;
}, 600_000);

afterAll(async () => {
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

const env = () => ({ ...process.env, BECKON_URL: server.resource.baseUrl, BECKON_TOKEN: agentKey });
const bin = (dir: string, name: string) => path.join(dir, 'node_modules', '.bin', name);

describe('the packed packages', () => {
  it('publint and arethetypeswrong report nothing', async () => {
    for (const tarball of Object.values(tarballs)) {
      const bytes = await readFile(tarball);
      const lint = await publint({
        pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
        level: 'suggestion',
        strict: true,
      });
      expect(lint.messages, path.basename(tarball)).toEqual([]);

      const attw = await runProgram(process.execPath, [
        path.join(path.dirname(require.resolve('@arethetypeswrong/cli/package.json')), 'dist/index.js'),
        tarball,
        '--format',
        'json',
      ]);
      const report = JSON.parse(attw.stdout) as { analysis: { problems: unknown[] } };
      expect(report.analysis.problems, path.basename(tarball)).toEqual([]);
      expect(attw.code).toBe(0);
    }
  });

  it('hold built files only, declarations that name no server package, and only the runtime dependencies', async () => {
    const sdkDir = path.join(project, 'node_modules/@beckon/sdk');
    const manifest = JSON.parse(await readFile(path.join(sdkDir, 'package.json'), 'utf8')) as {
      version: string;
      dependencies: Record<string, string>;
      exports: Record<string, unknown>;
    };
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['@trpc/client', '@trpc/server']);
    // Ranges, so an application with its own tRPC 11 keeps one copy.
    for (const range of Object.values(manifest.dependencies)) expect(range).toMatch(/^\^11\./);
    expect(manifest.exports['.']).toEqual({
      import: { types: './dist/index.d.ts', default: './dist/index.js' },
      require: { types: './dist/index.d.cts', default: './dist/index.cjs' },
    });
    await expect(stat(path.join(sdkDir, 'src'))).rejects.toThrow();
    for (const declarations of ['dist/index.d.ts', 'dist/index.d.cts']) {
      const text = await readFile(path.join(sdkDir, declarations), 'utf8');
      expect(text).not.toContain('@beckon/');
      const imported = [...text.matchAll(/from ["']([^"']+)["']/g)].map((m) => m[1]);
      expect(new Set(imported)).toEqual(new Set(['@trpc/client', '@trpc/server']));
    }
    // The MCP SDK (and its web-server dependencies) comes only with @beckon/mcp.
    await expect(stat(path.join(sdkOnly, 'node_modules/@modelcontextprotocol'))).rejects.toThrow();
    await expect(stat(path.join(project, 'node_modules/@modelcontextprotocol/sdk'))).resolves.toBeTruthy();
  });
});

/** Runs a script of the stranger's project; answers its question once it prints the item's id. */
async function askAndAnswer(file: string) {
  const child = spawn(process.execPath, [file], { cwd: project, env: env() });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.done) throw new Error(`${file} printed nothing: ${stderr}`);
  const { id } = JSON.parse(first.value) as { id: string };
  const answered = await person.post(`/api/items/${id}/answer`, { values: { ok: true } });
  expect(answered.status).toBe(200);
  const second = await lines.next();
  const code = await new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.on('close', resolve);
  });
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  return { id, result: JSON.parse(second.value as string) as unknown };
}

describe('a project that installed @beckon/sdk with npm', () => {
  it.each([
    ['an ES module', 'ask.mjs', ESM_SCRIPT, 'Asked from ESM'],
    ['a CommonJS script', 'ask.cjs', CJS_SCRIPT, 'Asked from CommonJS'],
  ])('%s asks, waits for the answer, and gets typed errors', async (_kind, file, source, title) => {
    await writeFile(path.join(project, file), source);
    const { id, result } = await askAndAnswer(file);
    expect(result).toEqual({
      status: 'answered',
      response: { ok: true },
      missing: { notFound: true, beckonError: true, status: 404 },
    });
    expect((await person.get<{ title: string }>(`/api/items/${id}`)).body.title).toBe(title);
  });

  it.each([
    ['nodenext (CommonJS project: the .d.cts)', 'nodenext'],
    ['bundler (the .d.ts)', 'preserve'],
  ] as const)(
    'tsc --noEmit passes under strict settings with %s, and names each misspelled field',
    async (_name, module) => {
      await writeFile(path.join(project, 'typed.ts'), TYPED_USE);
      await writeFile(path.join(project, 'misspelled.ts'), MISSPELLED_USE);
      await writeFile(path.join(project, `tsconfig.typed.${module}.json`), tsconfig('typed.ts', module));
      await writeFile(path.join(project, `tsconfig.typos.${module}.json`), tsconfig('misspelled.ts', module));
      expect(await tsc(path.join(project, `tsconfig.typed.${module}.json`))).toEqual({ code: 0, output: '' });
      const typos = await tsc(path.join(project, `tsconfig.typos.${module}.json`));
      expect(typos.code).not.toBe(0);
      expect(typos.output).toContain("'titel' does not exist");
      expect(typos.output).toContain("'stauts' does not exist");
      expect(typos.output).toContain("'limt' does not exist");
    },
  );

  it('works in a browser when bundled for it: asks, waits over the event stream, typed errors', async () => {
    const bundle = await bundleForBrowser(project);
    const origin = new URL(server.resource.baseUrl).origin;
    const { result, requested, problems } = await inChromium(origin, bundle, async (check) => {
      const asked = await check.ask(agentKey);
      const waiting = check.wait();
      await person.post(`/api/items/${asked.id}/answer`, { values: { ok: true } });
      return { asked, outcome: await waiting };
    });
    expect(result.asked.notFound).toBe(true);
    expect(result.outcome).toEqual({ status: 'answered', response: { ok: true } });
    expect(problems).toEqual([]);
    expect(requested.every((url) => url.startsWith(origin))).toBe(true);
    expect(requested.some((url) => url.startsWith(`${origin}/mcp/sse`))).toBe(true);
  });

  it('runs the beckon CLI with plain node', async () => {
    const notified = await runProgram(
      bin(project, 'beckon'),
      ['notify', 'From the installed CLI', '--json'],
      {
        env: env(),
      },
    );
    expect(notified).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(notified.stdout)).toMatchObject({ title: 'From the installed CLI', status: 'open' });
    const head = (await readFile(path.join(project, 'node_modules/@beckon/sdk/dist/cli.mjs'), 'utf8')).split(
      '\n',
    )[0];
    expect(head).toBe('#!/usr/bin/env node');
    const { version } = JSON.parse(await readFile(path.join(REPO_DIR, 'sdk/package.json'), 'utf8')) as {
      version: string;
    };
    expect(await runProgram(bin(project, 'beckon'), ['--version'])).toMatchObject({
      code: 0,
      stdout: `${version}\n`,
    });
    expect(await runProgram(bin(project, 'beckon-mcp'), ['--version'])).toMatchObject({
      code: 0,
      stdout: `${version}\n`,
    });
  });

  it('loads the framework adapters with import and require; a missing framework is named', async () => {
    const load = (code: string) =>
      runProgram(process.execPath, ['--input-type=module', '-e', code], { cwd: sdkOnly });
    const esm = await load(
      "const [ai, oa, cl] = await Promise.all(['ai', 'openai-agents', 'claude-agent-sdk'].map((p) => import('@beckon/sdk/' + p)));" +
        'console.log(typeof ai.beckonToolApproval, typeof oa.askForApprovals, typeof cl.beckonCanUseTool);',
    );
    expect(esm).toMatchObject({ code: 0, stdout: 'function function function\n' });
    const cjs = await runProgram(
      process.execPath,
      ['-e', "console.log(typeof require('@beckon/sdk/openai-agents').applyApprovals)"],
      { cwd: sdkOnly },
    );
    expect(cjs).toMatchObject({ code: 0, stdout: 'function\n' });
    // LangGraph's adapter calls the framework: without it installed, the error names it.
    const missing = await load("await import('@beckon/sdk/langgraph')");
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('@langchain/langgraph');
  });

  it('beckon mcp says how to get @beckon/mcp when it is not installed', async () => {
    const run = await runProgram(bin(sdkOnly, 'beckon'), ['mcp'], { env: env() });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('npm install @beckon/mcp');
  });
});

describe('a project that installed @beckon/mcp with npm', () => {
  it.each([
    ['beckon-mcp', 'beckon-mcp', []],
    ['beckon mcp (delegating to @beckon/mcp)', 'beckon', ['mcp']],
  ] as const)('an MCP client over stdio lists the tools and calls one: %s', async (name, command, args) => {
    const client = new Client({ name: 'stdio-host', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: bin(project, command),
        args: [...args],
        env: env() as Record<string, string>,
        stderr: 'pipe',
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['service.notify', 'service.ask', 'service.list']),
      );
      const title = `Notified through ${name}`;
      const result = (await client.callTool({ name: 'service.notify', arguments: { title } })) as {
        content: Array<{ type: string; text: string }>;
      };
      const item = JSON.parse(result.content[0]!.text) as { id: string };
      expect((await person.get<{ title: string }>(`/api/items/${item.id}`)).body.title).toBe(title);
    } finally {
      await client.close();
    }
  });
});

// The repository path must not leak into what was installed (the packages stand alone).
it('installed nothing from the workspace', async () => {
  const lock = await readFile(path.join(project, 'package-lock.json'), 'utf8');
  expect(lock).not.toContain(REPO_DIR);
  expect(lock).not.toContain('workspace:');
});
