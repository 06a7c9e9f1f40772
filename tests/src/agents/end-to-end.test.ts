import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createClient } from '@beckon/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';
import { openEventStream } from '../harness/sse';

const BIN = fileURLToPath(new URL('../../../sdk/bin/beckon.mjs', import.meta.url));
const FORM = { id: 'deploy', fields: [{ id: 'ok', type: 'yesno', label: 'Ship it?', required: true }] };

let server: TestServer;
let agentKey: string;
let person: HttpClient;
let mcp: Client;

beforeAll(async () => {
  server = await startTestServer();
  const f = new Factories(server.database.db);
  const account = await f.account('owner');
  agentKey = (await f.apiKey(account.org.id, account.user.id)).token;
  person = server.resource.as(account.token);
  mcp = new Client({ name: 'e2e-agent', version: '1.0.0' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${server.resource.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${agentKey}` } },
    }),
  );
});
afterAll(async () => {
  await mcp?.close();
  await server?.close();
});

/** The agent asks through MCP; returns the new item's id. */
async function askThroughMcp(title: string): Promise<string> {
  const result = (await mcp.callTool({ name: 'service.ask', arguments: { title, form: FORM } })) as {
    content: Array<{ text: string }>;
  };
  return (JSON.parse(result.content[0]!.text) as { id: string }).id;
}

describe('an agent asks, a person answers, the outcome flows back', () => {
  it('(a) the SDK waitForAnswer resolves with the values', async () => {
    const id = await askThroughMcp('Deploy 4.2?');
    const beckon = createClient({ baseUrl: server.resource.baseUrl, token: agentKey });
    const waiting = beckon.waitForAnswer(id, { timeoutMs: 20_000 });
    setTimeout(() => void person.post(`/api/items/${id}/answer`, { values: { ok: true } }), 200);
    const outcome = await waiting;
    expect(outcome.status).toBe('answered');
    expect(outcome.response).toEqual({ ok: true });
  });

  it('(b) the event stream resumed with Last-Event-ID after a disconnect delivers the answer exactly once', async () => {
    const url = `${server.resource.baseUrl}/mcp/sse`;
    const auth = { authorization: `Bearer ${agentKey}` };
    const first = await openEventStream(url, auth);
    const id = await askThroughMcp('Roll back?');
    await first.until((events) => events.some((e) => e.event === 'item.created'));
    first.close();

    await person.post(`/api/items/${id}/answer`, { values: { ok: false } });
    const lastSeen = first.events.at(-1)!.id!;
    const resumed = await openEventStream(url, { ...auth, 'last-event-id': lastSeen });
    await resumed.until((events) => events.some((e) => e.event === 'item.answered'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    resumed.close();
    const answers = resumed.events.filter((e) => e.event === 'item.answered');
    expect(answers).toHaveLength(1);
    expect(JSON.parse(answers[0]!.data).item).toMatchObject({
      id,
      status: 'answered',
      response: { ok: false },
    });
  });

  it('(c) beckon ask --wait prints the answer and exits 0', async () => {
    const child = spawn(
      process.execPath,
      [BIN, 'ask', 'Merge the release branch?', '--field', 'ok:yesno:Merge?', '--wait', '--timeout', '30'],
      {
        env: { ...process.env, BECKON_URL: server.resource.baseUrl, BECKON_TOKEN: agentKey, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));

    let itemId: string | undefined;
    for (let i = 0; i < 200 && !itemId; i++) {
      const list = await person.get<{ items: Array<{ id: string; title: string }> }>(
        '/api/items?status=open',
      );
      itemId = list.body.items.find((item) => item.title === 'Merge the release branch?')?.id;
      if (!itemId) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(itemId).toBeDefined();
    await person.post(`/api/items/${itemId}/answer`, { values: { ok: true } });

    expect(await exited, stderr).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ status: 'answered', item_id: itemId, response: { ok: true } });
  });
});
