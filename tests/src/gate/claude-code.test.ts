import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { query, type SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';
import { createClient } from '@beckon/sdk';
import { beckonCanUseTool } from '@beckon/sdk/claude-agent-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, finishedRun, type HttpClient, startTestServer, type TestServer } from '../harness';
import { claudeCodeBinary } from '../harness/claude-code';
import { type FakeModel, startFakeModel } from '../harness/fake-anthropic';
import { openQuestion } from './questions';

/**
 * The gate inside Claude Code itself: its real binary (the one the Claude Agent SDK runs), talking
 * to a scripted model, calls `beckon gate` as its PreToolUse hook, and the Agent SDK's query()
 * calls beckonCanUseTool; a person answers through REST.
 */
const BIN = fileURLToPath(new URL('../../../sdk/bin/beckon.mjs', import.meta.url));

let server: TestServer;
let model: FakeModel;
let person: HttpClient;
let agentToken: string;
let claude: string;
let home: string;

beforeAll(async () => {
  claude = claudeCodeBinary();
  [server, model] = await Promise.all([startTestServer(), startFakeModel()]);
  const f = new Factories(server.database.db);
  const account = await f.account('owner');
  person = server.resource.as(account.token);
  agentToken = (await f.apiKey(account.org.id, account.user.id)).token;
  home = await mkdtemp(path.join(tmpdir(), 'beckon-claude-home-'));
}, 120_000);
afterAll(async () => {
  await Promise.all([server?.close(), model?.close()]);
  if (home) await rm(home, { recursive: true, force: true });
});

/** Claude Code's environment: the fake model, no traffic elsewhere, a home of its own. */
const claudeEnv = () => ({
  ...process.env,
  HOME: home,
  ANTHROPIC_BASE_URL: model.url,
  ANTHROPIC_API_KEY: 'sk-ant-test',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
  BECKON_URL: server.resource.baseUrl,
  BECKON_TOKEN: agentToken,
});

const answer = async (title: string, values: Record<string, unknown>) => {
  const { id } = await openQuestion(person, title);
  expect((await person.post(`/api/items/${id}/answer`, { values })).status).toBe(200);
};

const project = () => mkdtemp(path.join(tmpdir(), 'beckon-claude-project-'));

/** `claude -p "<prompt>"` in a project, its JSON result. */
async function claudePrint(cwd: string, prompt: string) {
  const child = spawn(claude, ['-p', prompt, '--output-format', 'json'], { cwd, env: claudeEnv() });
  const run = await finishedRun(child);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { result: string; permission_denials: { tool_name: string }[] };
}

describe('Claude Code with `beckon gate install`', () => {
  it('runs what the policy allows, asks a person for the rest, and reads a denial as the reason', async () => {
    const dir = await project();
    const install = await finishedRun(
      spawn(process.execPath, [
        BIN,
        'gate',
        'install',
        '--dir',
        dir,
        '--command',
        `"${process.execPath}" "${BIN}" gate`,
      ]),
    );
    expect(install.code, install.stderr).toBe(0);
    await writeFile(
      path.join(dir, '.beckon', 'gate.json'),
      JSON.stringify({
        allow: ['Bash(echo *)'],
        deny: ['Bash(rm -rf *)'],
        default: 'ask',
        timeout_seconds: 60,
      }),
    );

    const echoed = await claudePrint(dir, 'run: echo hello from the gate');
    expect(echoed.result).toBe('The tool said: hello from the gate');

    const refused = await claudePrint(dir, 'run: rm -rf build');
    expect(refused.result).toContain('Denied by the gate policy rule Bash(rm -rf *)');
    expect(refused.permission_denials.map((denial) => denial.tool_name)).toEqual(['Bash']);

    const asking = claudePrint(dir, 'run: touch approved.txt');
    await answer('Bash: touch approved.txt', { decision: 'allow' });
    expect((await asking).permission_denials).toEqual([]);
    expect(existsSync(path.join(dir, 'approved.txt'))).toBe(true);

    const denied = claudePrint(dir, 'run: git push origin main');
    await answer('Bash: git push origin main', { decision: 'deny', note: 'CI is red' });
    expect((await denied).result).toContain('CI is red');
    await rm(dir, { recursive: true, force: true });
  }, 120_000);
});

describe('the Claude Agent SDK: query() with beckonCanUseTool', () => {
  /** One query() run to its result message, Claude Code deciding through canUseTool. */
  async function run(cwd: string, prompt: string): Promise<SDKResultMessage> {
    const beckon = createClient({ baseUrl: server.resource.baseUrl, token: agentToken });
    const messages = query({
      prompt,
      options: {
        cwd,
        env: claudeEnv(),
        pathToClaudeCodeExecutable: claude,
        settingSources: [],
        canUseTool: beckonCanUseTool({ beckon, cwd, policy: { default: 'ask' } }),
      },
    });
    for await (const message of messages) if (message.type === 'result') return message;
    throw new Error('query() ended without a result');
  }

  it('runs the tool once a person allows it, and hands the model the note of a denial', async () => {
    const dir = await project();
    const allowed = run(dir, 'run: touch from-the-sdk.txt');
    await answer('Bash: touch from-the-sdk.txt', { decision: 'allow' });
    const result = await allowed;
    expect(result.subtype).toBe('success');
    expect(existsSync(path.join(dir, 'from-the-sdk.txt'))).toBe(true);

    const denied = run(dir, 'run: git push --force');
    await answer('Bash: git push --force', { decision: 'deny', note: 'not on a Friday' });
    const refusal = await denied;
    expect(refusal.subtype === 'success' && refusal.result).toContain('not on a Friday');
    expect(model.turns.at(-1)?.toolResults.join('')).toContain(
      'Denied by a person through Beckon: not on a Friday',
    );
    await rm(dir, { recursive: true, force: true });
  }, 120_000);
});
