import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CanUseTool } from '@anthropic-ai/claude-agent-sdk';
import { createClient } from '@beckon/sdk';
import { beckonCanUseTool } from '@beckon/sdk/claude-agent-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Factories,
  type Finished,
  finishedRun,
  type HttpClient,
  startTestServer,
  type TestServer,
} from '../harness';
import { openQuestion } from './questions';

/**
 * The framework adapters with each framework's real package and a scripted model (the SDK's
 * examples, run as a user runs them), answered by a person through REST.
 */
const SDK_DIR = fileURLToPath(new URL('../../../sdk', import.meta.url));

let server: TestServer;
let person: HttpClient;
let agentToken: string;
let work: string;

type Item = { id: string; title: string; status: string; tags: string[]; message: string };
type Run = Finished;

beforeAll(async () => {
  server = await startTestServer();
  const f = new Factories(server.database.db);
  const account = await f.account('owner');
  person = server.resource.as(account.token);
  agentToken = (await f.apiKey(account.org.id, account.user.id)).token;
  work = await mkdtemp(path.join(tmpdir(), 'beckon-adapters-'));
});
afterAll(async () => {
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** An example of the SDK, run with tsx as `npx tsx examples/<file>` does. */
function example(file: string, args: string[] = []): Promise<Run> {
  const child = spawn(process.execPath, ['--import', 'tsx', `examples/${file}`, ...args], {
    cwd: SDK_DIR,
    env: {
      ...process.env,
      BECKON_URL: server.resource.baseUrl,
      BECKON_TOKEN: agentToken,
      ANTHROPIC_API_KEY: '',
    },
  });
  return finishedRun(child);
}

const answer = async (title: string, values: Record<string, unknown>) => {
  const { id } = await openQuestion(person, title);
  expect((await person.post(`/api/items/${id}/answer`, { values })).status).toBe(200);
  return id;
};
const finished = (run: Run) => {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return run.stdout.trim();
};

describe('Vercel AI SDK (ai): toolApproval', () => {
  it('runs the tool once a person allows it; a denial reaches the model with the note', async () => {
    const allowed = example('ai-sdk.ts');
    await answer('deploy: production', { decision: 'allow' });
    expect(finished(await allowed)).toBe('The tool said: {"type":"text","value":"deployed to production"}');

    const denied = example('ai-sdk.ts');
    const id = await answer('deploy: production', { decision: 'deny', note: 'not during the freeze' });
    expect(finished(await denied)).toBe(
      'The tool said: {"type":"execution-denied","reason":"Denied by a person through Beckon: not during the freeze"}',
    );
    const item = (await person.get<Item>(`/api/items/${id}`)).body;
    expect(item.message).toContain('release bot');
    expect(item.message).toContain('"env": "production"');
  }, 120_000);
});

describe('OpenAI Agents SDK (@openai/agents): needsApproval', () => {
  it('resumes the run from the answer in another process, the item id carried in the serialized state', async () => {
    const state = path.join(work, 'run-1.json');
    const started = JSON.parse(finished(await example('openai-agents.ts', ['start', state]))) as {
      asked: string[];
    };
    expect(started.asked).toHaveLength(1);
    // The first process has exited; a person answers; a new process resumes.
    const id = await answer('refund: A-1042', { decision: 'allow_for', note: 'goodwill' });
    expect(started.asked).toEqual([id]);
    const resumed = JSON.parse(finished(await example('openai-agents.ts', ['resume', state])));
    expect(resumed).toEqual({
      approved: ['call-1'],
      rejected: [],
      output: 'The tool said: refunded 30 on A-1042',
    });

    // The grant lets the next run's call pass without a question.
    const again = path.join(work, 'run-2.json');
    expect(JSON.parse(finished(await example('openai-agents.ts', ['start', again])))).toEqual({ asked: [] });
    expect(JSON.parse(finished(await example('openai-agents.ts', ['resume', again]))).output).toBe(
      'The tool said: refunded 30 on A-1042',
    );
  }, 150_000);

  it('a rejection carries the note to the model', async () => {
    const grants = (await person.get<Array<{ id: string }>>('/api/gate/grants')).body;
    for (const grant of grants) await person.request('DELETE', `/api/gate/grants/${grant.id}`);
    const state = path.join(work, 'run-3.json');
    finished(await example('openai-agents.ts', ['start', state]));
    await answer('refund: A-1042', { decision: 'deny', note: 'the order was never paid' });
    const resumed = JSON.parse(finished(await example('openai-agents.ts', ['resume', state])));
    expect(resumed).toMatchObject({ approved: [], rejected: ['call-1'] });
    expect(resumed.output).toBe('The tool said: Denied by a person through Beckon: the order was never paid');
  }, 150_000);
});

describe('LangGraph.js (@langchain/langgraph): interrupt()', () => {
  it('pauses the graph and resumes it with the decision', async () => {
    const denied = example('langgraph.ts');
    await answer('drop_table: sessions', { decision: 'deny', note: 'sessions are still in use' });
    expect(finished(await denied)).toBe(
      'The tool said: Denied by a person through Beckon: sessions are still in use',
    );

    const allowed = example('langgraph.ts');
    await answer('drop_table: sessions', { decision: 'allow' });
    expect(finished(await allowed)).toBe('The tool said: dropped sessions');
  }, 120_000);
});

describe('Claude Agent SDK (@anthropic-ai/claude-agent-sdk): canUseTool', () => {
  const beckon = () => createClient({ baseUrl: server.resource.baseUrl, token: agentToken });
  const options = (id: string) => ({
    signal: new AbortController().signal,
    toolUseID: id,
    requestId: `req_${id}`,
    suggestions: [],
  });

  it('decides by the policy at once, and asks a person for the rest', async () => {
    const canUseTool: CanUseTool = beckonCanUseTool({
      beckon: beckon(),
      cwd: '/repo',
      policy: { allow: ['Bash(npm test*)', 'Read'], deny: ['Bash(rm -rf *)'], default: 'ask' },
    });
    expect(await canUseTool('Bash', { command: 'npm test' }, options('t1'))).toEqual({
      behavior: 'allow',
      updatedInput: { command: 'npm test' },
      toolUseID: 't1',
    });
    expect(await canUseTool('Bash', { command: 'rm -rf /' }, options('t2'))).toEqual({
      behavior: 'deny',
      message: 'Denied by the gate policy rule Bash(rm -rf *)',
      toolUseID: 't2',
    });
    const input = { file_path: '/repo/src/app.ts', old_string: 'a', new_string: 'b' };
    const asking = canUseTool('Edit', input, options('t3'));
    await answer('Edit: src/app.ts', { decision: 'allow' });
    expect(await asking).toEqual({ behavior: 'allow', updatedInput: input, toolUseID: 't3' });
  });

  it('runs its example: a denial is the message the model reads', async () => {
    const run = example('claude-agent-sdk.ts');
    await answer('Bash: git push origin main', { decision: 'deny', note: 'CI is red' });
    expect(JSON.parse(finished(await run))).toEqual({
      behavior: 'deny',
      message: 'Denied by a person through Beckon: CI is red',
      toolUseID: 'toolu_01',
    });
  }, 120_000);
});
