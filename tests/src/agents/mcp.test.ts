// Longer than 300 lines: the tools' contract at each protocol revision, over one server and its agents.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, mcpError, planLimitBody, startTestServer, type TestServer } from '../harness';

type Item = {
  id: string;
  status: string;
  title: string;
  tags: string[];
  metadata: unknown;
  channel: string | null;
};
type ToolResult = {
  content: Array<{ type: string; text: string }>;
  structuredContent?: unknown;
  isError?: boolean;
};

let server: TestServer;
let f: Factories;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startTestServer();
  f = new Factories(server.database.db);
  await server.database.sql`update plans set monthly_notifications = 3 where code = 'free'`;
  await server.database.sql`update plans set monthly_notifications = null where code = 'team'`;
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await server?.close();
});

/** An organization on Team (unlimited notifications in this file) with an owner and an agent key. */
async function agentAccount(plan: 'free' | 'team' = 'team') {
  const account = await f.account('owner');
  await server.database.sql`
    update subscriptions set plan_id = (select id from plans where code = ${plan}) where org_id = ${account.org.id}`;
  const key = await f.apiKey(account.org.id, account.user.id);
  return { ...account, key, owner: server.resource.as(account.token) };
}

/**
 * The SDK's own MCP client over Streamable HTTP. With `protocol`, the initialize request asks for
 * that revision instead of the SDK's newest (the server must accept and echo it).
 */
async function connect(token: string | null, protocol?: string) {
  const negotiated: string[] = [];
  const fetchWith = async (url: string | URL, init?: RequestInit) => {
    let body = init?.body;
    if (protocol && typeof body === 'string' && body.includes('"initialize"')) {
      body = body.replace(/"protocolVersion":"[^"]+"/, `"protocolVersion":"${protocol}"`);
    }
    const response = await fetch(url, { ...init, body });
    if (typeof body === 'string' && body.includes('"initialize"')) {
      const text = await response.clone().text();
      const match = /"protocolVersion":"([^"]+)"/.exec(text);
      if (match?.[1]) negotiated.push(match[1]);
    }
    return response;
  };
  const transport = new StreamableHTTPClientTransport(new URL(`${server.resource.baseUrl}/mcp`), {
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : {},
    fetch: fetchWith,
  });
  const client = new Client({ name: 'beckon-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, negotiated };
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as ToolResult;
const payload = <T>(result: ToolResult) => JSON.parse(result.content[0]!.text) as T;

const FORM = { id: 'deploy', fields: [{ id: 'ok', type: 'yesno', label: 'Ship it?', required: true }] };

describe('POST /mcp', () => {
  it('initializes with protocol 2025-03-26 and lists the eleven tools with schemas', async () => {
    const { key } = await agentAccount();
    const { client, negotiated } = await connect(key.token, '2025-03-26');
    expect(negotiated).toEqual(['2025-03-26']);
    expect(client.getServerVersion()).toMatchObject({ name: 'beckon' });
    expect(client.getServerCapabilities()?.tools).toBeDefined();

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'service.ack',
      'service.ask',
      'service.comment_add',
      'service.dismiss',
      'service.gate_grant',
      'service.gate_request',
      'service.get',
      'service.list',
      'service.notify',
      'service.snooze',
      'service.update',
    ]);
    const ask = tools.find((t) => t.name === 'service.ask')!;
    expect(ask.description).toBeTruthy();
    expect(ask.inputSchema.required).toEqual(expect.arrayContaining(['title', 'form']));
    const props = ask.inputSchema.properties as Record<string, { description?: string; type?: string }>;
    expect(Object.keys(props)).toEqual(
      expect.arrayContaining([
        'title',
        'form',
        'message',
        'level',
        'channel',
        'tags',
        'priority',
        'callback_url',
      ]),
    );
    expect(props.priority).toMatchObject({ type: 'integer', minimum: 0, maximum: 4 });
    const list = tools.find((t) => t.name === 'service.list')!;
    expect(Object.keys(list.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['status', 'channel', 'limit', 'include_archived', 'include_snoozed']),
    );
    for (const tool of tools) expect(tool.description!.length).toBeGreaterThan(10);
  });

  it('accepts the newest revision too, and then adds structuredContent', async () => {
    const { key } = await agentAccount();
    const { client, negotiated } = await connect(key.token);
    expect(negotiated[0]! >= '2025-06-18').toBe(true);
    const result = await call(client, 'service.notify', { title: 'Structured' });
    expect(result.structuredContent).toEqual(payload(result));
  });

  it('declares titles, honest hints and output schemas; results validate and link the item (2025-06-18 on)', async () => {
    const { key } = await agentAccount();
    const { client } = await connect(key.token);
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.outputSchema?.type, tool.name).toBe('object');
    }
    expect(byName['service.list']!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName['service.dismiss']!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    expect(byName['service.ack']!.annotations).toMatchObject({
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(byName['service.notify']!.annotations).toMatchObject({
      destructiveHint: false,
      idempotentHint: false,
    });
    expect(Object.keys(byName['service.list']!.outputSchema!.properties ?? {})).toEqual([
      'items',
      'next_cursor',
    ]);
    // The official client checks structuredContent against the declared outputSchema itself.
    const asked = (await client.callTool({
      name: 'service.ask',
      arguments: { title: 'Linked?', form: FORM },
    })) as ToolResult & { content: Array<{ type: string; uri?: string; name?: string }> };
    const item = payload<Item>(asked);
    expect(asked.content[1]).toEqual({
      type: 'resource_link',
      uri: `${server.deps.env.APP_URL}/items/${item.id}`,
      name: 'Linked?',
      mimeType: 'text/html',
      description: 'The item in the dashboard',
    });
    const listed = (await client.callTool({ name: 'service.list', arguments: {} })) as ToolResult;
    expect(listed.content.filter((c) => c.type === 'resource_link')).toHaveLength(
      (listed.structuredContent as { items: unknown[] }).items.length,
    );
    // Older revisions see neither output schemas nor links.
    const { client: old } = await connect(key.token, '2025-03-26');
    expect((await old.listTools()).tools.every((t) => t.outputSchema === undefined)).toBe(true);
  });

  it('calls every tool through the same procedures as REST', async () => {
    const { key, owner } = await agentAccount();
    await owner.post('/api/channels', { name: 'deploys', mode: 'open' });
    const { client } = await connect(key.token, '2025-03-26');

    const notified = await call(client, 'service.notify', {
      title: 'Build finished',
      message: 'All green',
      level: 'success',
      channel: 'deploys',
      tags: ['ci'],
      priority: 3,
      metadata: { run: 42 },
    });
    expect(notified.structuredContent).toBeUndefined();
    const note = payload<Item & { created_by: unknown; level: string; priority: number }>(notified);
    expect(note).toMatchObject({
      title: 'Build finished',
      channel: 'deploys',
      level: 'success',
      priority: 3,
    });
    expect(note.created_by).toEqual({ type: 'agent', id: key.agentId });

    const asked = payload<Item>(
      await call(client, 'service.ask', {
        title: 'Deploy?',
        form: FORM,
        callback_url: 'https://example.com/hook',
      }),
    );
    expect(asked.status).toBe('open');

    const listed = payload<{ items: Item[] }>(
      await call(client, 'service.list', { status: 'open', channel: 'deploys', limit: 1000 }),
    );
    expect(listed.items.map((i) => i.id)).toEqual([note.id]);

    const acked = payload<{ acked_at: string | null }>(await call(client, 'service.ack', { id: note.id }));
    expect(acked.acked_at).not.toBeNull();
    const snoozed = payload<{ snoozed_until: string }>(
      await call(client, 'service.snooze', {
        id: note.id,
        until: new Date(Date.now() + 3600_000).toISOString(),
      }),
    );
    expect(snoozed.snoozed_until).toEqual(expect.any(String));
    const comment = payload<{ body: string; actor_type: string }>(
      await call(client, 'service.comment_add', { id: asked.id, text: 'waiting on you' }),
    );
    expect(comment).toMatchObject({ body: 'waiting on you', actor_type: 'agent' });
    const updated = payload<Item>(
      await call(client, 'service.update', {
        id: asked.id,
        title: 'Deploy now?',
        tags: ['prod'],
        metadata: { a: 1 },
      }),
    );
    expect(updated).toMatchObject({ title: 'Deploy now?', tags: ['prod'], metadata: { a: 1 } });
    const replaced = payload<Item>(await call(client, 'service.update', { id: asked.id, tags: ['x'] }));
    expect(replaced.tags).toEqual(['x']);
    const dismissed = payload<Item>(await call(client, 'service.dismiss', { id: asked.id }));
    expect(dismissed.status).toBe('dismissed');

    const viaRest = await owner.get<Item>(`/api/items/${asked.id}`);
    expect(viaRest.body.status).toBe('dismissed');
  });

  /** The field messages of an `isError` result, one `- field: message` line each. */
  const refusedText = (result: ToolResult) => {
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    return result.content[0]!.text;
  };

  for (const protocol of ['2025-03-26', '2025-06-18', '2025-11-25']) {
    it(`${protocol}: invalid arguments are a tool result naming each field; an unknown tool is -32602`, async () => {
      const { key } = await agentAccount();
      const { client } = await connect(key.token, protocol);
      // Listed first: the SDK's client then checks results against the tools' output schemas.
      await client.listTools();
      const noForm = refusedText(await call(client, 'service.ask', { title: 'Q' }));
      expect(noForm).toMatch(/^Invalid arguments:\n- form: /);
      const bad = refusedText(await call(client, 'service.notify', { priority: 9, colour: 'red' }));
      expect(bad).toContain('- title: ');
      expect(bad).toContain('- priority: ');
      expect(bad).toContain('- colour: unknown field');
      // The procedure's own field checks too.
      const unknownChannel = await call(client, 'service.notify', { title: 'x', channel: 'nope' });
      expect(refusedText(unknownChannel)).toBe('Invalid arguments:\n- channel: unknown channel');
      const unknownTool = await mcpError(call(client, 'service.delete_everything', {}));
      expect(unknownTool.code).toBe(-32602);
    });
  }

  it("answers 404 for another organization's item and replays an idempotency_key", async () => {
    const { key } = await agentAccount();
    const other = await agentAccount();
    const { client } = await connect(key.token, '2025-03-26');
    const { client: otherClient } = await connect(other.key.token, '2025-03-26');
    const theirs = payload<Item>(await call(otherClient, 'service.notify', { title: 'Theirs' }));
    const notFound = await mcpError(call(client, 'service.ack', { id: theirs.id }));
    expect(notFound.data).toEqual({ error: 'not found', code: 'not_found' });

    const first = payload<Item>(
      await call(client, 'service.notify', { title: 'Once', idempotency_key: 'k-1' }),
    );
    const again = payload<Item>(
      await call(client, 'service.notify', { title: 'Once', idempotency_key: 'k-1' }),
    );
    expect(again.id).toBe(first.id);
  });

  it('answers -32002 naming the limit when the monthly quota is exhausted', async () => {
    const { key } = await agentAccount('free');
    const { client } = await connect(key.token, '2025-03-26');
    for (let i = 0; i < 3; i++) await call(client, 'service.notify', { title: `n${i}` });
    const exhausted = await mcpError(call(client, 'service.ask', { title: 'One more?', form: FORM }));
    expect(exhausted.code).toBe(-32002);
    expect(exhausted.data).toEqual(planLimitBody('monthly_notifications', 3, 3));
  });

  it('refuses a missing or revoked key with 401 and the challenge', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const headers = { accept: 'application/json, text/event-stream' };
    const missing = await server.resource.as(null).post('/mcp', initialize, { headers });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(
      /resource_metadata="http:\/\/localhost:3000\/\.well-known\/oauth-protected-resource"/,
    );

    const { key } = await agentAccount();
    const { client } = await connect(key.token, '2025-03-26');
    await server.database.sql`update api_keys set revoked_at = now() where id = ${key.id}`;
    await server.syncIdentities();
    const revoked = await server.resource.as(key.token).post('/mcp', initialize, { headers });
    expect(revoked.status).toBe(401);
    await expect(client.listTools()).rejects.toThrow(/401|nauthorized/);
    await expect(connect(null)).rejects.toThrow();
  });
});
