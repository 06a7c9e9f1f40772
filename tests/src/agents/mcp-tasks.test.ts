// Longer than 300 lines: tasks and bounded waits over two processes and a restart, by the SDK client and raw JSON-RPC at each revision.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  Factories,
  mcpError,
  mcpRequest,
  startTestServer,
  type TestDatabase,
  type TestServer,
} from '../harness';

type Item = { id: string; status: string; title: string; response: Record<string, unknown> | null };
type Task = { taskId: string; status: string; statusMessage?: string; ttl: number; pollInterval?: number };
type ToolResult = {
  content: Array<{ type: string; text?: string; uri?: string }>;
  structuredContent?: unknown;
  _meta?: Record<string, unknown>;
};

const FORM = { id: 'go', fields: [{ id: 'ok', type: 'yesno', label: 'Ship it?', required: true }] };
const ASK = { name: 'service.ask', arguments: { title: 'Ship it?', form: FORM } };

// One database, two resource processes: `first` takes the agents' MCP calls, `second` the people's
// answers (REST), as two processes of a deployment would; `first` is restarted in one test.
let database: TestDatabase;
let first: TestServer;
let second: TestServer;
let f: Factories;
const clients: Client[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  first = await startTestServer({ database, worker: true });
  second = await startTestServer({ database });
  f = new Factories(database.db);
});
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await second?.close();
  await first?.close();
  await database?.drop();
});

async function agentAccount() {
  const account = await f.account('owner');
  const key = await f.apiKey(account.org.id, account.user.id);
  const otherAgent = await f.apiKey(account.org.id, account.user.id);
  return { ...account, key, otherAgent, person: second.resource.as(account.token) };
}

/** The SDK's client over Streamable HTTP (its newest revision, 2025-11-25, unless `protocol`). */
async function connect(token: string, server: TestServer = first, protocol?: string) {
  const fetchWith = async (url: string | URL, init?: RequestInit) => {
    const body =
      protocol && typeof init?.body === 'string'
        ? init.body.replace(/"protocolVersion":"[^"]+"/, `"protocolVersion":"${protocol}"`)
        : init?.body;
    return fetch(url, { ...init, body });
  };
  const transport = new StreamableHTTPClientTransport(new URL(`${server.resource.baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: fetchWith,
  });
  const client = new Client({ name: 'beckon-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** Raw JSON-RPC (no initialize: the server is stateless) at a given revision. */
async function rpc<T>(token: string, protocol: string, method: string, params: unknown, server = first) {
  const { status, body } = await mcpRequest<T>(server.resource.baseUrl, token, method, params, protocol);
  expect(status).toBe(200);
  return body;
}

/** Until a call on `first` waits for an item (it subscribed to the process's event hub). */
async function untilWaiting() {
  while (!first.deps.events?.subscriberCount) await new Promise((resolve) => setTimeout(resolve, 20));
}

const itemOf = (result: ToolResult) => JSON.parse(result.content[0]!.text!) as Item;

async function createTask(
  client: Client,
  call: { name: string; arguments: Record<string, unknown> } = ASK,
  ttl = 60_000,
) {
  const { task } = await client.request(
    { method: 'tools/call', params: { ...call, task: { ttl } } },
    CreateTaskResultSchema,
  );
  return task;
}

describe('MCP tasks (2025-11-25)', () => {
  it('advertises tasks; service.ask and service.get may run as tasks, other tools not', async () => {
    const { key } = await agentAccount();
    const client = await connect(key.token);
    expect(client.getServerCapabilities()?.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const { tools } = await client.listTools();
    const supporting = tools.filter((t) => t.execution?.taskSupport === 'optional').map((t) => t.name);
    expect(supporting.sort()).toEqual(['service.ask', 'service.get']);
    const refused = await mcpError(createTask(client, { name: 'service.notify', arguments: { title: 'x' } }));
    expect(refused.code).toBe(-32601);
    // Revisions before 2025-11-25 are not told about tasks.
    const older = await connect(key.token, first, '2025-06-18');
    expect((await older.listTools()).tools.some((t) => t.execution)).toBe(false);
  });

  it('answers tools/call at once with a task; a person answers on another process; the SDK client streams it to the result', async () => {
    const { key, person } = await agentAccount();
    const client = await connect(key.token);
    await client.listTools(); // the client learns which tools run as tasks
    const stream = client.experimental.tasks.callToolStream(ASK, CallToolResultSchema);
    const seen: string[] = [];
    let result: ToolResult | undefined;
    for await (const message of stream) {
      seen.push(message.type === 'taskStatus' ? `status:${message.task.status}` : message.type);
      if (message.type === 'taskCreated') {
        expect(message.task).toMatchObject({ status: 'working', pollInterval: 5000 });
        expect(message.task.ttl).toEqual(expect.any(Number));
        const [item] = (await person.get<{ items: Item[] }>('/api/items?status=open')).body.items;
        const answered = await person.post(`/api/items/${item!.id}/answer`, { values: { ok: true } });
        expect(answered.status).toBe(200);
      }
      if (message.type === 'result') result = message.result as ToolResult;
      if (message.type === 'error') throw message.error;
    }
    expect(seen[0]).toBe('taskCreated');
    expect(seen).toContain('status:completed');
    const item = itemOf(result!);
    expect(item).toMatchObject({ status: 'answered', response: { ok: true } });
    expect(result!.structuredContent).toEqual(item);
    expect(result!.content.some((c) => c.type === 'resource_link' && c.uri?.endsWith(item.id))).toBe(true);
  });

  it('tasks/result waits for the answer, and the task survives a restart of the process serving it', async () => {
    const { key, person } = await agentAccount();
    const client = await connect(key.token);
    const task = await createTask(client);
    const waiting = client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    const [item] = (await person.get<{ items: Item[] }>('/api/items?status=open')).body.items;
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('working');
    await person.post(`/api/items/${item!.id}/answer`, { values: { ok: false } });
    const result = (await waiting) as ToolResult;
    expect(itemOf(result).status).toBe('answered');
    expect(result._meta).toEqual({ 'io.modelcontextprotocol/related-task': { taskId: task.taskId } });
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({
      status: 'completed',
      statusMessage: 'answered',
    });

    // Another question asked as a task; the process stops; a person answers meanwhile (on the
    // other process); the process starts again on the same database and serves the task.
    const later = await createTask(client);
    const [open] = (await person.get<{ items: Item[] }>('/api/items?status=open')).body.items;
    // A tasks/result still waiting when the process stops is answered (so the process can stop).
    const interrupted = rpc(key.token, '2025-11-25', 'tasks/result', { taskId: later.taskId });
    await untilWaiting();
    await first.close();
    expect((await interrupted).error).toMatchObject({ code: -32000 });
    first = await startTestServer({ database, worker: true });
    await person.post(`/api/items/${open!.id}/answer`, { values: { ok: true } });
    const again = await connect(key.token);
    expect((await again.experimental.tasks.getTask(later.taskId)).status).toBe('completed');
    const fetched = (await again.experimental.tasks.getTaskResult(
      later.taskId,
      CallToolResultSchema,
    )) as ToolResult;
    expect(itemOf(fetched)).toMatchObject({ id: open!.id, status: 'answered' });
  });

  it('tasks/cancel withdraws the question; the result says so; a finished task cannot be cancelled', async () => {
    const { key, person } = await agentAccount();
    const client = await connect(key.token);
    const task = await createTask(client);
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled', statusMessage: 'withdrawn' });
    const { items } = (await person.get<{ items: Item[] }>('/api/items?status=withdrawn')).body;
    expect(items).toHaveLength(1);
    const result = (await client.experimental.tasks.getTaskResult(
      task.taskId,
      CallToolResultSchema,
    )) as ToolResult;
    expect(itemOf(result).status).toBe('withdrawn');
    const again = await mcpError(client.experimental.tasks.cancelTask(task.taskId));
    expect(again.code).toBe(-32602);
  });

  it('an item that reaches its deadline completes its task as expired (service.get as a task)', async () => {
    const { key, person } = await agentAccount();
    const deadline = new Date(Date.now() + 1500).toISOString();
    const item = (await person.post<Item>('/api/items', { title: 'Soon', form: FORM, deadline_at: deadline }))
      .body;
    const client = await connect(key.token);
    const task = await createTask(client, { name: 'service.get', arguments: { id: item.id } });
    const result = (await client.experimental.tasks.getTaskResult(
      task.taskId,
      CallToolResultSchema,
    )) as ToolResult;
    expect(itemOf(result)).toMatchObject({ id: item.id, status: 'expired' });
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({
      status: 'completed',
      statusMessage: 'expired',
    });
  });

  it("is scoped to the agent: another agent's task id is not found, and lists page only the caller's tasks", async () => {
    const { key, otherAgent } = await agentAccount();
    const mine = await connect(key.token);
    const theirs = await connect(otherAgent.token);
    const created: string[] = [];
    for (let i = 0; i < 3; i++) created.push((await createTask(mine)).taskId);
    const notFound = await mcpError(theirs.experimental.tasks.getTask(created[0]!));
    expect(notFound.code).toBe(-32602);
    expect((await mcpError(theirs.experimental.tasks.cancelTask(created[0]!))).code).toBe(-32602);
    expect((await theirs.experimental.tasks.listTasks()).tasks).toEqual([]);
    const listed = await mine.experimental.tasks.listTasks();
    expect(listed.tasks.map((t) => t.taskId)).toEqual([...created].reverse());
    expect(listed.nextCursor).toBeUndefined();
    expect((await mcpError(mine.experimental.tasks.getTask('not-a-task'))).code).toBe(-32602);
  });

  it('pages tasks/list with a cursor (raw JSON-RPC)', async () => {
    const { key } = await agentAccount();
    for (let i = 0; i < 51; i++) {
      const created = await rpc<{ task: Task }>(key.token, '2025-11-25', 'tools/call', { ...ASK, task: {} });
      expect(created.result?.task.status).toBe('working');
    }
    const page = await rpc<{ tasks: Task[]; nextCursor?: string }>(key.token, '2025-11-25', 'tasks/list', {});
    expect(page.result!.tasks).toHaveLength(50);
    const next = await rpc<{ tasks: Task[]; nextCursor?: string }>(key.token, '2025-11-25', 'tasks/list', {
      cursor: page.result!.nextCursor,
    });
    expect(next.result!.tasks).toHaveLength(1);
    expect(next.result!.nextCursor).toBeUndefined();
  });
});

describe('raw JSON-RPC at each revision', () => {
  for (const protocol of ['2025-03-26', '2025-06-18', '2025-11-25']) {
    it(`${protocol}: service.ask with wait_seconds returns the answer that arrives in time, else the open item and how to resume`, async () => {
      const { key, person } = await agentAccount();
      const pending = await rpc<ToolResult>(key.token, protocol, 'tools/call', {
        name: 'service.ask',
        arguments: { title: 'Nobody answers', form: FORM, wait_seconds: 1 },
      });
      const open = itemOf(pending.result!);
      expect(open.status).toBe('open');
      expect(pending.result!.content[1]!.text).toContain(`service.get with {"id": "${open.id}"`);

      const waiting = rpc<ToolResult>(key.token, protocol, 'tools/call', {
        name: 'service.get',
        arguments: { id: open.id, wait_seconds: 50 },
      });
      // Answered once the call waits (subscribed to the event hub): the hub wakes it.
      await untilWaiting();
      await person.post(`/api/items/${open.id}/answer`, { values: { ok: true } });
      const answered = itemOf((await waiting).result!);
      expect(answered).toMatchObject({ id: open.id, status: 'answered', response: { ok: true } });
      expect((await waiting).result!.structuredContent !== undefined).toBe(protocol !== '2025-03-26');

      const tooLong = await rpc(key.token, protocol, 'tools/call', {
        name: 'service.get',
        arguments: { id: open.id, wait_seconds: 51 },
      });
      expect(tooLong.error).toBeUndefined();
      expect(tooLong.result).toMatchObject({
        isError: true,
        content: [{ text: expect.stringContaining('- wait_seconds: ') }],
      });
    });
  }

  it('2025-11-25: a waiting call whose client goes away stops waiting', async () => {
    const { key } = await agentAccount();
    const open = itemOf((await rpc<ToolResult>(key.token, '2025-11-25', 'tools/call', ASK)).result!);
    const leaving = new AbortController();
    const waiting = mcpRequest(
      first.resource.baseUrl,
      key.token,
      'tools/call',
      { name: 'service.get', arguments: { id: open.id, wait_seconds: 50 } },
      '2025-11-25',
      leaving.signal,
    ).catch((error: unknown) => error);
    await untilWaiting();
    leaving.abort();
    expect(await waiting).toBeInstanceOf(Error);
    for (let i = 0; i < 100 && first.deps.events?.subscriberCount; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(first.deps.events?.subscriberCount).toBe(0);
  });

  it('2025-11-25: a task created, answered on another process, read by tasks/get and tasks/result', async () => {
    const { key, person } = await agentAccount();
    const created = await rpc<{ task: Task }>(key.token, '2025-11-25', 'tools/call', {
      ...ASK,
      task: { ttl: 3_600_000 },
    });
    const { task } = created.result!;
    expect(task).toMatchObject({ status: 'working', ttl: 3_600_000, pollInterval: 5000 });
    const got = await rpc<Task>(key.token, '2025-11-25', 'tasks/get', { taskId: task.taskId }, second);
    expect(got.result).toMatchObject({ taskId: task.taskId, status: 'working' });
    const [item] = (await person.get<{ items: Item[] }>('/api/items?status=open')).body.items;
    const result = rpc<ToolResult>(key.token, '2025-11-25', 'tasks/result', { taskId: task.taskId });
    await untilWaiting();
    await person.post(`/api/items/${item!.id}/answer`, { values: { ok: true } });
    expect(itemOf((await result).result!).status).toBe('answered');
    const done = await rpc<Task>(key.token, '2025-11-25', 'tasks/get', { taskId: task.taskId });
    expect(done.result).toMatchObject({ status: 'completed', statusMessage: 'answered' });
  });
});

describe('through the SDK server (the path of requests asking for progress)', () => {
  it('creates a task the SDK validates as a CreateTaskResult, sent as server-sent events', async () => {
    const { key } = await agentAccount();
    const response = await fetch(`${first.resource.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { ...ASK, task: { ttl: 60_000 }, _meta: { progressToken: 'p-1' } },
      }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const data = (await response.text()).split('\n').find((line) => line.startsWith('data: '));
    const message = JSON.parse(data!.slice('data: '.length)) as { result: { task: Task } };
    expect(message.result.task).toMatchObject({ status: 'working', ttl: 60_000 });
    const got = await rpc<Task>(key.token, '2025-11-25', 'tasks/get', { taskId: message.result.task.taskId });
    expect(got.result?.status).toBe('working');
  });
});

describe('progress while waiting', () => {
  it('sends progress notifications (over server-sent events) when the client gave a progress token', async () => {
    const { key, person } = await agentAccount();
    const client = await connect(key.token, first, '2025-06-18');
    const progress: Progress[] = [];
    const asked = client.callTool(
      { name: 'service.ask', arguments: { title: 'Progress?', form: FORM, wait_seconds: 50 } },
      CallToolResultSchema,
      { onprogress: (p) => progress.push(p) },
    );
    // The first notification comes as the wait begins: the answer arrives while the call waits.
    while (progress.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const [open] = (await person.get<{ items: Item[] }>('/api/items?status=open')).body.items;
    if (!open) throw new Error('no open item');
    await person.post(`/api/items/${open.id}/answer`, { values: { ok: true } });
    const result = (await asked) as ToolResult;
    expect(itemOf(result).status).toBe('answered');
    expect(progress[0]).toMatchObject({ progress: 0, total: 50, message: 'waiting for a person' });
  });
});
