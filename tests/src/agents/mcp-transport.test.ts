import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, MCP_ACCEPT, startTestServer, type TestServer } from '../harness';

let server: TestServer;
let token: string;

beforeAll(async () => {
  server = await startTestServer({ env: { MCP_ALLOWED_ORIGINS: 'https://agents.example' } });
  const f = new Factories(server.database.db);
  const account = await f.account('owner');
  token = (await f.apiKey(account.org.id, account.user.id)).token;
});
afterAll(async () => {
  await server?.close();
});

/** A raw POST /mcp with the given headers (over the agent's key) and body. */
async function post(body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.resource.baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: MCP_ACCEPT,
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

const ping = { jsonrpc: '2.0', id: 7, method: 'ping' };

/** POST /mcp with a Host header of one's choosing (fetch sets its own). */
function rawPost(headers: { host: string; origin: string }) {
  const { port } = new URL(server.resource.baseUrl);
  return new Promise<{ status: number }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: {
          ...headers,
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: MCP_ACCEPT,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(ping));
  });
}
const initialize = {
  jsonrpc: '2.0',
  id: 'init-1',
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

describe('POST /mcp: Origin', () => {
  it('refuses a foreign Origin with 403 before anything else, credentials or not', async () => {
    for (const request of [ping, initialize]) {
      const refused = await post(request, { origin: 'https://evil.example' });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    }
    const anonymous = await fetch(`${server.resource.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, origin: 'https://evil.example' },
      body: JSON.stringify(ping),
    });
    expect(anonymous.status).toBe(403);
    const stream = await fetch(`${server.resource.baseUrl}/mcp`, { headers: { origin: 'null' } });
    expect(stream.status).toBe(403);
  });

  it('accepts a loopback page calling the service by a loopback name, not by another name', async () => {
    const local = await rawPost({ host: '127.0.0.1', origin: 'http://localhost:8123' });
    expect(local.status).toBe(200);
    expect(await rawPost({ host: 'beckon.example.com', origin: 'http://localhost:8123' })).toMatchObject({
      status: 403,
    });
    // DNS rebinding: the attacker's name in both headers, the service's address underneath.
    expect(await rawPost({ host: 'evil.example.com', origin: 'http://evil.example.com' })).toMatchObject({
      status: 403,
    });
  });

  it("accepts no Origin, the service's own origins and the configured ones", async () => {
    expect((await post(ping)).body).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    const env = server.deps.env;
    for (const origin of [
      new URL(env.APP_URL).origin,
      new URL(env.RESOURCE_URL).origin,
      new URL(env.ISSUER_URL).origin,
      'https://agents.example',
    ]) {
      const answered = await post(initialize, { origin });
      expect(answered.status, origin).toBe(200);
      expect(answered.body).toMatchObject({ id: 'init-1', result: { serverInfo: { name: 'beckon' } } });
    }
  });
});

describe('POST /mcp: error responses name the request id', () => {
  it('when the client does not accept both JSON and event streams', async () => {
    const refused = await post(ping, { accept: 'application/json' });
    expect(refused.status).toBe(406);
    expect(refused.body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32000 } });
  });

  it('when the request is not JSON-RPC 2.0', async () => {
    const wrongVersion = await post({ jsonrpc: '1.0', id: 'a', method: 'ping' });
    expect(wrongVersion.status).toBe(400);
    expect(wrongVersion.body).toMatchObject({ id: 'a', error: { code: -32600 } });
    const noMethod = await post({ jsonrpc: '2.0', id: 3, method: 42 });
    expect(noMethod.body).toMatchObject({ id: 3, error: { code: -32600 } });
    const listParams = await post({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: [1] });
    expect(listParams.body).toMatchObject({ id: 4, error: { code: -32600 } });
  });

  it('when the protocol revision is unknown', async () => {
    const refused = await post(ping, { 'mcp-protocol-version': '1999-01-01' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ id: 7, error: { message: expect.stringContaining('1999-01-01') } });
  });

  it('for errors of methods and tools', async () => {
    const unknown = await post({ jsonrpc: '2.0', id: 9, method: 'nothing/here' });
    expect(unknown.body).toMatchObject({ id: 9, error: { code: -32601 } });
    const badTask = await post({ jsonrpc: '2.0', id: 10, method: 'tasks/get', params: { taskId: 'x' } });
    expect(badTask.body).toMatchObject({ id: 10, error: { code: -32602 } });
  });

  it('and only an unreadable body is answered with id null, as a JSON-RPC error', async () => {
    const unreadable = await post('{"jsonrpc":"2.0","id":5,', {});
    expect(unreadable.status).toBe(400);
    expect(unreadable.body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, data: { fields: { body: 'malformed JSON' } } },
    });
    const empty = await post('', {});
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ id: null, error: { code: -32700 } });
    const notJson = await post('ping', { 'content-type': 'text/plain' });
    expect(notJson.status).toBe(415);
    expect(notJson.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: expect.any(Number) } });
    const tooLarge = await post({ ...ping, params: { padding: 'x'.repeat(1024 * 1024) } });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: expect.any(Number) } });
    // REST keeps its own body for the same mistake.
    const rest = await fetch(`${server.resource.baseUrl}/api/items`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"title":',
    });
    expect(rest.status).toBe(400);
    expect(await rest.json()).toMatchObject({ fields: { body: 'malformed JSON' } });
  });
});
