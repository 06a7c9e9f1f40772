// Longer than 300 lines: the stateless revision over two processes (discovery, tools, headers, tasks, subscriptions).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type StatelessAnswer as Answer,
  createTestDatabase,
  Factories,
  MCP_ACCEPT,
  STATELESS_REVISION,
  type StatelessOptions,
  startReceiver,
  startTestServer,
  statelessRequest,
  TASKS_EXTENSION as TASKS,
  type TestDatabase,
  type TestServer,
} from '../harness';

const REVISION = STATELESS_REVISION;
const FORM = { id: 'go', fields: [{ id: 'ok', type: 'yesno', label: 'Ship it?', required: true }] };

type Tool = { name: string; description: string; inputSchema: Record<string, unknown> };
type Item = { id: string; status: string; response: Record<string, unknown> | null };

// One database, two resource processes: requests go to either (no session ties a client to one).
let database: TestDatabase;
let first: TestServer;
let second: TestServer;
let f: Factories;

beforeAll(async () => {
  database = await createTestDatabase();
  first = await startTestServer({ database, worker: true });
  second = await startTestServer({ database });
  f = new Factories(database.db);
});
afterAll(async () => {
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

type Options = StatelessOptions & { server?: TestServer };

/** One 2026-07-28 request to `first` (or `options.server`). */
const rpc = (token: string, method: string, params: Record<string, unknown> = {}, options: Options = {}) =>
  statelessRequest((options.server ?? first).resource.baseUrl, token, method, params, options);

const itemOf = (result: Record<string, unknown>) => result.structuredContent as Item;

/** `service_ask` of a yes/no question by a client that declares the tasks extension. */
const askAsTask = (token: string, title: string) =>
  rpc(token, 'tools/call', { name: 'service_ask', arguments: { title, form: FORM } }, { tasks: true });

describe('POST /mcp at 2026-07-28', () => {
  it('answers server/discover and tools/list without a handshake, from any process', async () => {
    const { key } = await agentAccount();
    for (const server of [first, second]) {
      const { status, body } = await rpc(key.token, 'server/discover', {}, { server });
      expect(status).toBe(200);
      expect(body.result).toMatchObject({
        resultType: 'complete',
        supportedVersions: expect.arrayContaining([REVISION, '2025-11-25', '2025-06-18', '2025-03-26']),
        capabilities: { tools: {}, extensions: { [TASKS]: {} } },
        instructions: expect.stringContaining('service_ask'),
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'beckon' } },
      });
    }
    const listed = await rpc(key.token, 'tools/list', {}, { server: second });
    expect(listed.body.result).toMatchObject({ resultType: 'complete', cacheScope: 'private' });
    expect(listed.body.result?.ttlMs).toEqual(expect.any(Number));
    const tools = listed.body.result?.tools as Tool[];
    expect(tools).toHaveLength(11);
    expect(new Set(tools.map((t) => t.name)).size).toBe(11);
    for (const tool of tools) expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(tools.map((t) => t.name)).toContain('service_notify');
    // The definitions name the tools as listed.
    expect(JSON.stringify(tools)).not.toMatch(/service\.[a-z]/);
  });

  it('serves the dotted names to a client that asks for them, never both spellings', async () => {
    const { key } = await agentAccount();
    const dotted = await rpc(key.token, 'tools/list', {}, { path: '/mcp?tool_names=dotted' });
    const names = (dotted.body.result!.tools as Tool[]).map((t) => t.name);
    expect(names).toContain('service.notify');
    expect(names.filter((n) => n.includes('_') && n.startsWith('service_'))).toEqual([]);
    // Older revisions keep the dotted names unless asked too.
    const older = await fetch(`${first.resource.baseUrl}/mcp?tool_names=underscore`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key.token}`,
        'content-type': 'application/json',
        accept: MCP_ACCEPT,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    const olderTools = ((await older.json()) as Answer).result?.tools as Tool[];
    expect(olderTools.map((t) => t.name)).toContain('service_ask');
    expect(olderTools.map((t) => t.name)).not.toContain('service.ask');
  });

  it('calls a tool by either spelling; refused arguments are a result the model reads', async () => {
    const { key } = await agentAccount();
    const called = await rpc(key.token, 'tools/call', { name: 'service_notify', arguments: { title: 'Hi' } });
    expect(called.body.result).toMatchObject({ resultType: 'complete', structuredContent: { title: 'Hi' } });
    const dotted = await rpc(key.token, 'tools/call', { name: 'service.notify', arguments: { title: 'Ho' } });
    expect(itemOf(dotted.body.result!).status).toBe('open');

    const invalid = await rpc(key.token, 'tools/call', {
      name: 'service_notify',
      arguments: { priority: 9, colour: 'red' },
    });
    expect(invalid.body.error).toBeUndefined();
    expect(invalid.body.result).toMatchObject({ resultType: 'complete', isError: true });
    const text = (invalid.body.result!.content as Array<{ text: string }>)[0]!.text;
    expect(text).toContain('title:');
    expect(text).toContain('priority:');
    expect(text).toContain('colour: unknown field');
    const unknownChannel = await rpc(key.token, 'tools/call', {
      name: 'service_notify',
      arguments: { title: 'x', channel: 'nope' },
    });
    expect(unknownChannel.body.result).toMatchObject({ isError: true });
    expect((unknownChannel.body.result!.content as Array<{ text: string }>)[0]!.text).toContain(
      'channel: unknown channel',
    );
    const unknownTool = await rpc(key.token, 'tools/call', { name: 'service_delete', arguments: {} });
    expect(unknownTool.body).toMatchObject({ id: 1, error: { code: -32602 } });
  });

  it('checks the headers against the body and names removed methods', async () => {
    const { key } = await agentAccount();
    const call = { name: 'service_notify', arguments: { title: 'x' } };
    const noMethod = await rpc(key.token, 'tools/call', call, { headers: { 'mcp-method': '' } });
    expect(noMethod.status).toBe(400);
    expect(noMethod.body).toMatchObject({ id: 1, error: { code: -32020 } });
    const otherName = await rpc(key.token, 'tools/call', call, { headers: { 'mcp-name': 'service_ask' } });
    expect(otherName.body).toMatchObject({ error: { code: -32020 } });
    const encoded = await rpc(key.token, 'tools/call', call, {
      headers: { 'mcp-name': `=?base64?${Buffer.from('service_notify').toString('base64')}?=` },
    });
    expect(encoded.body.result).toMatchObject({ resultType: 'complete' });
    const otherVersion = await rpc(
      key.token,
      'tools/list',
      {},
      { headers: { 'mcp-protocol-version': '2025-11-25' } },
    );
    expect(otherVersion.body).toMatchObject({ error: { code: -32020 } });
    const noMeta = await rpc(
      key.token,
      'tools/list',
      {},
      { meta: { 'io.modelcontextprotocol/clientCapabilities': null } },
    );
    expect(noMeta.status).toBe(400);
    expect(noMeta.body).toMatchObject({ id: 1, error: { code: -32602 } });
    const ping = await rpc(key.token, 'ping');
    expect(ping.status).toBe(404);
    expect(ping.body).toMatchObject({ id: 1, error: { code: -32601 } });
    const unknownVersion = await rpc(
      key.token,
      'tools/list',
      {},
      {
        headers: { 'mcp-protocol-version': '2099-01-01' },
        meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
      },
    );
    expect(unknownVersion.status).toBe(400);
    expect(unknownVersion.body.error).toMatchObject({
      code: -32022,
      data: { supported: expect.arrayContaining([REVISION]), requested: '2099-01-01' },
    });
  });
});

describe('the tasks extension at 2026-07-28', () => {
  it('a question still open becomes a task; tasks/get returns its result once a person answers', async () => {
    const { key, person } = await agentAccount();
    const asked = await askAsTask(key.token, 'Ship it?');
    const task = asked.body.result!;
    expect(task).toMatchObject({ resultType: 'task', status: 'working', ttlMs: expect.any(Number) });
    expect(task.pollIntervalMs).toEqual(expect.any(Number));
    const taskId = task.taskId as string;

    const working = await rpc(key.token, 'tasks/get', { taskId }, { tasks: true, server: second });
    expect(working.body.result).toMatchObject({ resultType: 'complete', taskId, status: 'working' });
    expect(working.body.result?.result).toBeUndefined();
    expect(
      (await rpc(key.token, 'tasks/update', { taskId, inputResponses: {} }, { tasks: true })).body.result,
    ).toMatchObject({
      resultType: 'complete',
    });

    const [row] = await database.sql<
      { item_id: string }[]
    >`select item_id from mcp_tasks where id = ${taskId}`;
    await person.post(`/api/items/${row!.item_id}/answer`, { values: { ok: true } });
    const done = await rpc(key.token, 'tasks/get', { taskId }, { tasks: true });
    expect(done.body.result).toMatchObject({ status: 'completed', statusMessage: 'answered' });
    const result = done.body.result?.result as Record<string, unknown>;
    expect(itemOf(result)).toMatchObject({ id: row!.item_id, status: 'answered', response: { ok: true } });
  });

  it('a client without the extension gets the open item, and tasks methods refuse it', async () => {
    const { key } = await agentAccount();
    const asked = await rpc(key.token, 'tools/call', {
      name: 'service_ask',
      arguments: { title: 'Plain?', form: FORM },
    });
    expect(asked.body.result).toMatchObject({ resultType: 'complete' });
    expect(itemOf(asked.body.result!).status).toBe('open');
    const refused = await rpc(key.token, 'tasks/get', { taskId: '00000000-0000-7000-8000-000000000000' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: -32021 });
  });

  it("tasks/cancel withdraws the question; another agent's task is unknown", async () => {
    const { key, otherAgent, person } = await agentAccount();
    const asked = await askAsTask(key.token, 'Cancel me');
    const taskId = asked.body.result!.taskId as string;
    const theirs = await rpc(otherAgent.token, 'tasks/get', { taskId }, { tasks: true });
    expect(theirs.body.error).toMatchObject({ code: -32602 });
    expect(
      (await rpc(otherAgent.token, 'tasks/cancel', { taskId }, { tasks: true })).body.error,
    ).toMatchObject({
      code: -32602,
    });

    const cancelled = await rpc(key.token, 'tasks/cancel', { taskId }, { tasks: true, server: second });
    expect(cancelled.body.result).toMatchObject({ resultType: 'complete' });
    const got = await rpc(key.token, 'tasks/get', { taskId }, { tasks: true });
    expect(got.body.result).toMatchObject({ status: 'cancelled' });
    const [row] = await database.sql<
      { item_id: string }[]
    >`select item_id from mcp_tasks where id = ${taskId}`;
    expect((await person.get<Item>(`/api/items/${row!.item_id}`)).body.status).toBe('withdrawn');
    // Again: acknowledged, nothing changes.
    expect((await rpc(key.token, 'tasks/cancel', { taskId }, { tasks: true })).body.result).toBeDefined();
  });
});

describe("Beckon's tasks on the wire the conformance suite checks (SEP-2663)", () => {
  const ENVELOPE = ['taskId', 'status', 'result', 'error', 'inputRequests'];
  it('flat results in milliseconds, no requestState, the result inlined without related-task', async () => {
    const { key, person } = await agentAccount();
    const created = (await askAsTask(key.token, 'On the wire?')).body.result!;
    for (const field of ['ttl', 'pollInterval', 'requestState', 'result', 'error', 'inputRequests', 'task'])
      expect(created, field).not.toHaveProperty(field);
    expect(Number.isInteger(created.ttlMs) && (created.ttlMs as number) > 0).toBe(true);
    expect(Number.isInteger(created.pollIntervalMs) && (created.pollIntervalMs as number) > 0).toBe(true);
    for (const field of ['createdAt', 'lastUpdatedAt'])
      expect(String(created[field])).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
    const taskId = created.taskId as string;
    const working = (await rpc(key.token, 'tasks/get', { taskId }, { tasks: true })).body.result!;
    expect(working).not.toHaveProperty('requestState');

    const [row] = await database.sql<
      { item_id: string }[]
    >`select item_id from mcp_tasks where id = ${taskId}`;
    await person.post(`/api/items/${row!.item_id}/answer`, { values: { ok: true } });
    const done = (await rpc(key.token, 'tasks/get', { taskId }, { tasks: true })).body.result!;
    expect(done).toMatchObject({ resultType: 'complete', status: 'completed' });
    expect(done).not.toHaveProperty('requestState');
    const result = done.result as { content: unknown[]; _meta?: Record<string, unknown> };
    expect(result.content.length).toBeGreaterThan(0);
    expect(result._meta?.['io.modelcontextprotocol/related-task']).toBeUndefined();

    // Cancelling a finished task is the same empty acknowledgement.
    const ack = (await rpc(key.token, 'tasks/cancel', { taskId }, { tasks: true })).body.result!;
    expect(ack).toMatchObject({ resultType: 'complete' });
    for (const field of ENVELOPE) expect(ack, field).not.toHaveProperty(field);
    const update = (
      await rpc(key.token, 'tasks/update', { taskId, inputResponses: { x: {} } }, { tasks: true })
    ).body.result!;
    for (const field of ENVELOPE) expect(update, field).not.toHaveProperty(field);
  });

  it('tasks/result and tasks/list are gone; an unknown task is -32602', async () => {
    const { key } = await agentAccount();
    for (const method of ['tasks/result', 'tasks/list'])
      expect((await rpc(key.token, method, { taskId: 'x' }, { tasks: true })).body.error).toMatchObject({
        code: -32601,
      });
    const unknown = await rpc(
      key.token,
      'tasks/get',
      { taskId: 'tasks-conformance-nonexistent' },
      { tasks: true },
    );
    expect(unknown.body.error).toMatchObject({ code: -32602 });
  });
});

describe('subscriptions/listen at 2026-07-28', () => {
  it("acknowledges the items it follows and notifies their changes, another organization's left out", async () => {
    const { key, person } = await agentAccount();
    const stranger = await agentAccount();
    const asked = await rpc(key.token, 'tools/call', {
      name: 'service_ask',
      arguments: { title: 'Watch me', form: FORM },
    });
    const item = itemOf(asked.body.result!);
    const uri = `${first.deps.env.APP_URL}/items/${item.id}`;
    const read = await rpc(key.token, 'resources/read', { uri });
    expect(JSON.parse((read.body.result!.contents as Array<{ text: string }>)[0]!.text)).toMatchObject({
      id: item.id,
    });
    const theirs = itemOf(
      (
        await rpc(stranger.key.token, 'tools/call', {
          name: 'service_notify',
          arguments: { title: 'Theirs' },
        })
      ).body.result!,
    );
    const theirUri = `${first.deps.env.APP_URL}/items/${theirs.id}`;

    const controller = new AbortController();
    const response = await fetch(`${second.resource.baseUrl}/mcp`, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        authorization: `Bearer ${key.token}`,
        'content-type': 'application/json',
        accept: MCP_ACCEPT,
        'mcp-protocol-version': REVISION,
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'listen-1',
        method: 'subscriptions/listen',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': REVISION,
            'io.modelcontextprotocol/clientCapabilities': {},
          },
          notifications: { resourceSubscriptions: [uri, theirUri] },
        },
      }),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const messages: Array<{ method?: string; params?: Record<string, unknown> }> = [];
    let buffer = '';
    const next = async () => {
      while (true) {
        const frameEnd = buffer.indexOf('\n\n');
        if (frameEnd >= 0) {
          const frame = buffer.slice(0, frameEnd);
          buffer = buffer.slice(frameEnd + 2);
          const data = frame.split('\n').find((line) => line.startsWith('data: '));
          if (data) return JSON.parse(data.slice(6)) as (typeof messages)[number];
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buffer += value;
      }
    };
    const ack = await next();
    expect(ack).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: {
        _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' },
        notifications: { resourceSubscriptions: [uri] },
      },
    });
    await person.post(`/api/items/${item.id}/answer`, { values: { ok: true } });
    const updated = await next();
    expect(updated).toMatchObject({
      method: 'notifications/resources/updated',
      params: { uri, _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' } },
    });
    controller.abort();
  });
});

describe('asking the requester in the chat at 2026-07-28', () => {
  const CHOICE = {
    id: 'deploy',
    fields: [
      { id: 'ok', type: 'yesno', label: 'Ship it?', required: true },
      { id: 'env', type: 'select', label: 'Where', options: [{ value: 'prod', label: 'Production' }] },
      { id: 'note', type: 'textarea', label: 'Note', max_length: 200 },
    ],
  };
  const ask = { name: 'service_ask', arguments: { title: 'Deploy?', form: CHOICE, ask_requester: true } };

  it('asks by form elicitation; the retry answers the item as the requester via mcp', async () => {
    const { key, user, person } = await agentAccount();
    const first = await rpc(key.token, 'tools/call', ask, { elicitation: { form: {} } });
    const asked = first.body.result!;
    expect(asked).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        answer: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: 'Deploy?',
            requestedSchema: {
              type: 'object',
              properties: {
                ok: { type: 'boolean', title: 'Ship it?' },
                env: { type: 'string', oneOf: [{ const: 'prod', title: 'Production' }] },
                note: { type: 'string', maxLength: 200 },
              },
              required: ['ok'],
            },
          },
        },
      },
      requestState: expect.any(String),
    });
    // The item exists already: anyone it was sent to could answer it elsewhere.
    const listed = await person.get<{ items: Item[] }>('/api/items?status=open');
    expect(listed.body.items).toHaveLength(1);

    // A retry without the response is asked again; a forged state is refused.
    const again = await rpc(
      key.token,
      'tools/call',
      { ...ask, requestState: asked.requestState },
      {
        elicitation: { form: {} },
      },
    );
    expect(again.body.result).toMatchObject({
      resultType: 'input_required',
      requestState: asked.requestState,
    });
    const forged = await rpc(
      key.token,
      'tools/call',
      { ...ask, requestState: `${String(asked.requestState).slice(0, -2)}xx` },
      { elicitation: { form: {} } },
    );
    expect(forged.body.error).toMatchObject({ code: -32602 });

    // An answer the form refuses leaves the item open, with the field messages.
    const wrong = await rpc(
      key.token,
      'tools/call',
      {
        ...ask,
        requestState: asked.requestState,
        inputResponses: { answer: { action: 'accept', content: { env: 'mars' } } },
      },
      { elicitation: { form: {} } },
    );
    expect(wrong.body.result).toMatchObject({ isError: true });

    const answered = await rpc(
      key.token,
      'tools/call',
      {
        ...ask,
        requestState: asked.requestState,
        inputResponses: { answer: { action: 'accept', content: { ok: true, env: 'prod' } } },
      },
      { elicitation: { form: {} } },
    );
    const item = itemOf(answered.body.result!) as Item & { answered_via: string; answered_by: unknown };
    expect(item).toMatchObject({
      status: 'answered',
      response: { ok: true, env: 'prod' },
      answered_via: 'mcp',
      answered_by: { type: 'user', id: user.id },
    });
    expect(listed.body.items[0]!.id).toBe(item.id);
  });

  it('asks by URL when the client has only URL elicitation; a decline makes it a task', async () => {
    const { key } = await agentAccount();
    const first = await rpc(key.token, 'tools/call', ask, { elicitation: { url: {} }, tasks: true });
    const params = (first.body.result!.inputRequests as Record<string, { params: Record<string, unknown> }>)
      .answer!.params;
    expect(params).toMatchObject({ mode: 'url', url: expect.stringMatching(/\/items\/[0-9a-f-]{36}$/) });
    const declined = await rpc(
      key.token,
      'tools/call',
      {
        ...ask,
        requestState: first.body.result!.requestState,
        inputResponses: { answer: { action: 'decline' } },
      },
      { elicitation: { url: {} }, tasks: true },
    );
    expect(declined.body.result).toMatchObject({ resultType: 'task', status: 'working' });
  });

  it('an item collecting approvals does not count an answer relayed by the agent', async () => {
    const { key } = await agentAccount();
    const approvals = { ...ask, arguments: { ...ask.arguments, approvals: { required: 1 } } };
    const first = await rpc(key.token, 'tools/call', approvals, { elicitation: { form: {} } });
    const relayed = await rpc(
      key.token,
      'tools/call',
      {
        ...approvals,
        requestState: first.body.result!.requestState,
        inputResponses: { answer: { action: 'accept', content: { ok: true } } },
      },
      { elicitation: { form: {} } },
    );
    expect(itemOf(relayed.body.result!)).toMatchObject({ status: 'open', response: null });
    expect((relayed.body.result!.content as Array<{ text: string }>)[1]!.text).toContain('not counted');
  });

  it('without elicitation, or without ask_requester, the call goes on as any other', async () => {
    const { key } = await agentAccount();
    const plain = await rpc(key.token, 'tools/call', ask);
    expect(itemOf(plain.body.result!).status).toBe('open');
    const notAsked = await rpc(
      key.token,
      'tools/call',
      { name: 'service_ask', arguments: { title: 'Q', form: CHOICE } },
      { elicitation: { form: {} } },
    );
    expect(notAsked.body.result).toMatchObject({ resultType: 'complete' });
  });
});

describe('progress at 2026-07-28', () => {
  it('streams notifications/progress for a wait that carries a progress token, then the result', async () => {
    const { key } = await agentAccount();
    const asked = await rpc(key.token, 'tools/call', {
      name: 'service_ask',
      arguments: { title: 'Slow', form: FORM },
    });
    const item = itemOf(asked.body.result!);
    const response = await fetch(`${first.resource.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key.token}`,
        'content-type': 'application/json',
        accept: MCP_ACCEPT,
        'mcp-protocol-version': REVISION,
        'mcp-method': 'tools/call',
        'mcp-name': 'service_get',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: {
          name: 'service_get',
          arguments: { id: item.id, wait_seconds: 1 },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': REVISION,
            'io.modelcontextprotocol/clientCapabilities': {},
            progressToken: 'p-7',
          },
        },
      }),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const messages = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>);
    expect(messages[0]).toMatchObject({
      method: 'notifications/progress',
      params: { progressToken: 'p-7', progress: 0, total: 1 },
    });
    expect(messages.at(-1)).toMatchObject({
      id: 5,
      result: { resultType: 'complete', structuredContent: { id: item.id, status: 'open' } },
    });
  });
});

describe('trace context at 2026-07-28', () => {
  it('travels from _meta to the callbacks of the item the call created', async () => {
    const { key, person } = await agentAccount();
    const hook = await startReceiver();
    try {
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const asked = await rpc(
        key.token,
        'tools/call',
        { name: 'service_ask', arguments: { title: 'Traced', form: FORM, callback_url: `${hook.url}/cb` } },
        { meta: { traceparent, tracestate: 'vendor=1' } },
      );
      const item = itemOf(asked.body.result!);
      await person.post(`/api/items/${item.id}/answer`, { values: { ok: true } });
      const [callback] = await hook.waitFor(1);
      expect(callback!.headers).toMatchObject({ traceparent, tracestate: 'vendor=1' });
      expect(JSON.parse(callback!.body)).toMatchObject({ item_id: item.id });

      // Without trace context (or with a malformed one), no such header.
      const plain = await rpc(
        key.token,
        'tools/call',
        { name: 'service_ask', arguments: { title: 'Untraced', form: FORM, callback_url: `${hook.url}/cb` } },
        { meta: { traceparent: 'not-a-trace' } },
      );
      await person.post(`/api/items/${itemOf(plain.body.result!).id}/answer`, { values: { ok: false } });
      const [, second] = await hook.waitFor(2);
      expect(second!.headers.traceparent).toBeUndefined();
    } finally {
      await hook.close();
    }
  });
});

describe('task notifications at 2026-07-28', () => {
  /** subscriptions/listen with `notifications`, and a reader of its messages. */
  async function listenTo(token: string, notifications: Record<string, unknown>, tasks: boolean) {
    const controller = new AbortController();
    const response = await fetch(`${second.resource.baseUrl}/mcp`, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: MCP_ACCEPT,
        'mcp-protocol-version': REVISION,
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'listen-tasks',
        method: 'subscriptions/listen',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': REVISION,
            'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { [TASKS]: {} } } : {},
          },
          notifications,
        },
      }),
    });
    if (!response.headers.get('content-type')?.includes('text/event-stream'))
      return { status: response.status, body: (await response.json()) as Answer, next: null, stop: () => {} };
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    const next = async (): Promise<{ method?: string; params?: Record<string, unknown> }> => {
      while (true) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = frame.split('\n').find((line) => line.startsWith('data: '));
          if (data) return JSON.parse(data.slice(6));
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buffer += value;
      }
    };
    return { status: response.status, body: null, next, stop: () => controller.abort() };
  }

  it('sends the task, its result included, when its question is answered', async () => {
    const { key, otherAgent, person } = await agentAccount();
    const asked = await askAsTask(key.token, 'Notify me');
    const taskId = asked.body.result!.taskId as string;
    const theirs = await askAsTask(otherAgent.token, 'Not yours');

    const refused = await listenTo(key.token, { taskIds: [taskId] }, false);
    expect(refused.status).toBe(400);
    expect(refused.body?.error).toMatchObject({ code: -32021 });

    const listening = await listenTo(key.token, { taskIds: [taskId, theirs.body.result!.taskId] }, true);
    try {
      expect(await listening.next!()).toMatchObject({
        method: 'notifications/subscriptions/acknowledged',
        params: { notifications: { taskIds: [taskId] } },
      });
      const [row] = await database.sql<
        { item_id: string }[]
      >`select item_id from mcp_tasks where id = ${taskId}`;
      await person.post(`/api/items/${row!.item_id}/answer`, { values: { ok: true } });
      const notified = await listening.next!();
      expect(notified).toMatchObject({
        method: 'notifications/tasks',
        params: {
          taskId,
          status: 'completed',
          result: { structuredContent: { status: 'answered', response: { ok: true } } },
          _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-tasks' },
        },
      });
    } finally {
      listening.stop();
    }
  });
});
