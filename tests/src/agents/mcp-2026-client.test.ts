import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Item } from '../chat/setup';
import { Factories, STATELESS_REVISION, startTestServer, type TestServer } from '../harness';

/**
 * The official client of the 2026-07-28 revision (`@modelcontextprotocol/client`, the SDK's v2
 * line) pinned to that revision against Beckon's /mcp: no handshake, each request carrying the
 * revision, tools called by their 2026 names, and a question to the requester answered through
 * the client's own elicitation handler (multi round-trip requests, fulfilled by the client).
 */

const YES_NO = { id: 'go', fields: [{ id: 'ok', type: 'yesno', label: 'Ship it?', required: true }] };

let server: TestServer;
let f: Factories;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startTestServer({});
  f = new Factories(server.database.db);
});
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await server?.close();
});

/** A client pinned to 2026-07-28, and the JSON-RPC methods and revision headers it sent. */
async function connect(token: string) {
  const sent: { method: string; revision: string | null }[] = [];
  const recording = async (url: string | URL, init?: RequestInit) => {
    if (typeof init?.body === 'string') {
      const revision = new Headers(init.headers).get('mcp-protocol-version');
      sent.push({ method: (JSON.parse(init.body) as { method: string }).method, revision });
    }
    return fetch(url, init);
  };
  const transport = new StreamableHTTPClientTransport(new URL(`${server.resource.baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: recording,
  });
  const client = new Client(
    { name: 'beckon-test', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: STATELESS_REVISION } },
    },
  );
  await client.connect(transport);
  clients.push(client);
  return { client, sent };
}

async function agent() {
  const account = await f.account('owner');
  const key = await f.apiKey(account.org.id, account.user.id);
  return { ...account, key, person: server.resource.as(account.token) };
}

describe('the official 2026-07-28 client against /mcp', () => {
  it('connects by server/discover, lists the tools and calls them at the pinned revision', async () => {
    const { key, person } = await agent();
    const { client, sent } = await connect(key.token);
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe(STATELESS_REVISION);

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['service_ask', 'service_get']));
    const asked = await client.callTool({
      name: 'service_ask',
      arguments: { title: 'Ship v4?', form: YES_NO },
    });
    const open = asked.structuredContent as Item;
    expect(open.status).toBe('open');

    expect((await person.post(`/api/items/${open.id}/answer`, { values: { ok: true } })).status).toBe(200);
    const got = await client.callTool({ name: 'service_get', arguments: { id: open.id } });
    expect(got.structuredContent).toMatchObject({ id: open.id, status: 'answered', response: { ok: true } });

    expect(sent.map((s) => s.method)).toEqual(['server/discover', 'tools/list', 'tools/call', 'tools/call']);
    expect(sent.every((s) => s.revision === STATELESS_REVISION)).toBe(true);
  });

  it("answers a question to the requester through the client's elicitation handler", async () => {
    const { key, user } = await agent();
    const { client, sent } = await connect(key.token);
    const asked: unknown[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { ok: false } };
    });

    const result = await client.callTool({
      name: 'service_ask',
      arguments: { title: 'Roll back?', form: YES_NO, ask_requester: true },
    });
    expect(asked).toEqual([
      expect.objectContaining({
        mode: 'form',
        requestedSchema: expect.objectContaining({
          properties: { ok: expect.objectContaining({ type: 'boolean' }) },
        }),
      }),
    ]);
    expect(result.structuredContent).toMatchObject({
      status: 'answered',
      response: { ok: false },
      answered_via: 'mcp',
      answered_by: { type: 'user', id: user.id },
    });
    // The first call was answered with input_required; the client retried it with the answer.
    expect(sent.map((s) => s.method)).toEqual(['server/discover', 'tools/call', 'tools/call']);
  });
});
