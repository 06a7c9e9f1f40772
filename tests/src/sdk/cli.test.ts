import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, CreateTaskResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';
import { until, yesNoForm } from './helpers';

const BIN = fileURLToPath(new URL('../../../sdk/bin/beckon.mjs', import.meta.url));

let server: TestServer;
let f: Factories;
let person: HttpClient;
let agentToken: string;
let userId: string;

beforeAll(async () => {
  // The worker runs deadlines (the --on-timeout policy).
  server = await startTestServer({ worker: true });
  f = new Factories(server.database.db);
  const account = await f.account('owner');
  person = server.resource.as(account.token);
  userId = account.user.id;
  agentToken = (await f.apiKey(account.org.id, account.user.id)).token;
});
afterAll(() => server?.close());

type Run = { code: number | null; stdout: string; stderr: string };

/** Runs `beckon` as a child process, as a script or a person would. */
function beckon(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, BECKON_URL: server.resource.baseUrl, BECKON_TOKEN: agentToken, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<Run>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  // What it has written to stderr so far, while it runs.
  return Object.assign(done, { stderrSoFar: () => stderr });
}

type Item = { id: string; title: string; status: string };
const findItem = async (title: string) => {
  let found: Item | undefined;
  await until(async () => {
    const list = await person.get<{ items: Item[] }>(`/api/items?q=${encodeURIComponent(title)}`);
    found = list.body.items.find((i) => i.title === title);
    return found !== undefined;
  });
  return found!;
};

describe('beckon CLI', () => {
  it('notify prints the item; list --json is the API list', async () => {
    const notified = await beckon(['notify', 'Backup finished', '--level', 'success', '--tag', 'ops']);
    expect(notified).toMatchObject({ code: 0, stderr: '' });
    expect(notified.stdout).toMatch(/^[0-9a-f-]{36} {2}open +success +p2 {2}Backup finished\n$/);

    const listed = await beckon(['list', '--json']);
    expect(listed.code).toBe(0);
    const list = JSON.parse(listed.stdout) as { items: Item[]; next_cursor: string | null };
    expect(list.items[0]).toMatchObject({ title: 'Backup finished', tags: ['ops'] });
    expect(list.next_cursor).toBeNull();
  });

  it('get, ack, snooze and comment act on an item', async () => {
    const id = (await person.post<Item>('/api/items', { title: 'Look at me' })).body.id;
    expect((await beckon(['ack', id])).stdout).toBe(`acknowledged ${id} (status open)\n`);
    expect((await beckon(['snooze', id, '2h'])).stdout).toMatch(`snoozed ${id} until 20`);
    expect((await beckon(['comment', id, 'On it'])).stdout).toBe(`commented on ${id}\n`);
    const got = await beckon(['get', id, '--json']);
    expect(JSON.parse(got.stdout)).toMatchObject({
      id,
      acked_at: expect.any(String),
      snoozed_until: expect.any(String),
    });
    expect((await beckon(['get', id])).stdout).toMatch(/^id: +[0-9a-f-]{36}\ntitle: +Look at me\n/);
    expect((await person.get<unknown[]>(`/api/items/${id}/comments`)).body).toMatchObject([
      { body: 'On it' },
    ]);
  });

  it('ask --wait prints the answer as JSON and exits 0 once a person answers', async () => {
    const running = beckon(['ask', 'Deploy to production?', '--field', 'ok:yesno:Deploy?', '--wait']);
    const item = await findItem('Deploy to production?');
    await person.post(`/api/items/${item.id}/answer`, { values: { ok: true } });
    const run = await running;
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      status: 'answered',
      item_id: item.id,
      response: { ok: true },
      answered_by: { type: 'user', id: userId },
      yes: true,
    });
    const link = `${server.resource.baseUrl.replace(/\/$/, '')}/items/${item.id}`;
    expect(run.stderr.split('\n')[0]).toBe(`waiting for Deploy to production? — ${link} (item ${item.id})`);
  });

  it('ask --wait exits 6 on a No; --yes-if picks the value; stderr shows progress', async () => {
    const declined = beckon(['ask', 'Ship it?', '--field', 'ok:yesno:Ship?', '--wait']);
    const shipIt = await findItem('Ship it?');
    await person.post(`/api/items/${shipIt.id}/ack`);
    await until(() => declined.stderrSoFar().includes('\nseen ('));
    await person.post(`/api/items/${shipIt.id}/claim`);
    await until(() => declined.stderrSoFar().includes('\nclaimed by '));
    await person.post(`/api/items/${shipIt.id}/answer`, { values: { ok: false } });
    const no = await declined;
    expect(no.code).toBe(6);
    expect(JSON.parse(no.stdout)).toMatchObject({ status: 'answered', response: { ok: false }, yes: false });
    expect(no.stderr).toMatch(/\nseen \(\d+s\)\n/);
    expect(no.stderr).toMatch(/\nclaimed by .+ \(\d+s\)\n/);

    const choice = ['--field', 'how:select:How?:deploy,wait', '--wait', '--yes-if', 'how=deploy', '--json'];
    const deploy = beckon(['ask', 'Which way?', ...choice]);
    const which = await findItem('Which way?');
    await person.post(`/api/items/${which.id}/answer`, { values: { how: 'deploy' } });
    const yes = await deploy;
    expect(yes.code).toBe(0);
    expect(JSON.parse(yes.stdout)).toMatchObject({ status: 'answered', yes: true, item: { id: which.id } });
    const wait = beckon(['ask', 'Which way now?', ...choice]);
    const other = await findItem('Which way now?');
    await person.post(`/api/items/${other.id}/answer`, { values: { how: 'wait' } });
    expect(await wait).toMatchObject({ code: 6 });

    const typo = await beckon(['ask', 'Typo?', '--field', 'ok:yesno:OK?', '--wait', '--yes-if', 'okay=true']);
    expect(typo).toMatchObject({ code: 1, stdout: '' });
    expect(typo.stderr).toContain('--yes-if: the form has no field "okay"');
  });

  it('ask --on-timeout answers at the deadline as the policy; --approvals sets the rule', async () => {
    const run = await beckon([
      'ask',
      'Rotate the keys?',
      '--field',
      'ok:yesno:Rotate?',
      '--deadline',
      '2s',
      '--on-timeout',
      'answer:{"ok":false}',
      '--wait',
      '--timeout',
      '30',
    ]);
    // The policy answered No: the exit status says so.
    expect(run.code).toBe(6);
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: 'answered',
      response: { ok: false },
      answered_by: { type: 'policy', id: null },
    });
    const approvals = await beckon([
      'ask',
      'Merge?',
      '--field',
      'ok:yesno:Merge?',
      '--approvals',
      '2',
      '--json',
    ]);
    expect(JSON.parse(approvals.stdout)).toMatchObject({ approvals: { required: 2, approved: 0 } });
    const bad = await beckon(['ask', 'Merge?', '--field', 'ok:yesno:Merge?', '--on-timeout', 'maybe']);
    expect(bad).toMatchObject({ code: 1, stdout: '' });
    expect(bad.stderr).toContain('--on-timeout must be expire, dismiss or answer:<json values>');
  }, 90_000);

  it('ask --wait exits 2 on dismiss and 4 on timeout; --form reads a file', async () => {
    const formFile = path.join(tmpdir(), `beckon-form-${process.pid}.json`);
    await writeFile(formFile, JSON.stringify(yesNoForm));
    const dismissed = beckon(['ask', 'Rollback?', '--form', formFile, '--wait']);
    const item = await findItem('Rollback?');
    await person.post(`/api/items/${item.id}/dismiss`);
    expect(await dismissed).toMatchObject({ code: 2 });

    const timedOut = await beckon([
      'ask',
      'Anyone there?',
      '--field',
      'ok:yesno:OK?',
      '--wait',
      '--timeout',
      '1',
    ]);
    expect(timedOut.code).toBe(4);
    expect(JSON.parse(timedOut.stdout)).toMatchObject({ status: 'timeout', response: null });
  });

  it('a bad token, an invalid value and a usage mistake: a clear message on stderr and exit 1', async () => {
    const unauthorized = await beckon(['list'], { BECKON_TOKEN: 'wrong' });
    expect(unauthorized).toMatchObject({ code: 1, stdout: '' });
    expect(unauthorized.stderr).toBe(
      'beckon: unauthorized: the token was refused (check BECKON_TOKEN or --token)\n',
    );

    const invalid = await beckon(['notify', 'Bad', '--priority', '9']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^beckon: invalid request \(400\)\n {2}priority: /);

    const usage = await beckon(['ask', 'No form']);
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain('ask needs a form');

    // BECKON_URL on the authorization process: its 404 names the process to use.
    const elsewhere = await beckon(['list'], { BECKON_URL: server.auth.baseUrl });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toMatch(/^beckon: not found \(404\): .*resource process/);
  });
});

describe('beckon mcp', () => {
  it("serves the server's tools over stdio: tools/list, tools/call, and JSON-RPC errors unchanged", async () => {
    const client = new Client({ name: 'host', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp'],
        env: {
          ...(process.env as Record<string, string>),
          BECKON_URL: server.resource.baseUrl,
          BECKON_TOKEN: agentToken,
        },
        stderr: 'pipe',
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['service.notify', 'service.ask', 'service.list']),
      );
      const result = (await client.callTool({
        name: 'service.notify',
        arguments: { title: 'From a stdio host' },
      })) as {
        content: Array<{ type: string; text: string }>;
      };
      const item = JSON.parse(result.content[0]!.text) as Item;
      expect(item).toMatchObject({ title: 'From a stdio host', status: 'open' });
      expect((await person.get<Item>(`/api/items/${item.id}`)).body.title).toBe('From a stdio host');

      const error = await client
        .callTool({ name: 'service.ack', arguments: { id: '00000000-0000-7000-8000-000000000000' } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect(error).toMatchObject({ code: -32004, data: { error: 'not found', code: 'not_found' } });

      // Tasks pass through: asked as a task, answered by a person, the result fetched.
      expect(client.getServerCapabilities()?.tasks).toMatchObject({ requests: { tools: { call: {} } } });
      const { task } = await client.request(
        {
          method: 'tools/call',
          params: { name: 'service.ask', arguments: { title: 'Via stdio?', form: yesNoForm }, task: {} },
        },
        CreateTaskResultSchema,
      );
      expect(task.status).toBe('working');
      const waiting = client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      const [asked] = (await person.get<{ items: Item[] }>('/api/items?status=open')).body.items.filter(
        (i) => i.title === 'Via stdio?',
      );
      await person.post(`/api/items/${asked!.id}/answer`, { values: { ok: true } });
      const [text] = (await waiting).content as Array<{ text: string }>;
      const answered = JSON.parse(text!.text) as Item;
      expect(answered).toMatchObject({ id: asked!.id, status: 'answered' });
      expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
    } finally {
      await client.close();
    }
  });
});
