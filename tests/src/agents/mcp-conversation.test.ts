import { createBaseApp } from '@beckon/server/http/common';
import { registerMcp } from '@beckon/server/http/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';
import { FIXTURE_ENGINE } from './conformance-fixtures';

/**
 * A 2025 call that talks to its client (conversation.ts), with the conformance fixtures that do
 * (conformance-client-fixtures.ts) on Beckon's handling: the session's logging level, the
 * capabilities its `initialize` declared, and answers only from the credential asked.
 */
let server: TestServer;
let fixtures: FastifyInstance;
let another: FastifyInstance;
let url: string;
/** The same handling in another server, as another process would serve it (its own answers). */
let anotherUrl: string;
let token: string;
let otherToken: string;

beforeAll(async () => {
  server = await startTestServer();
  const f = new Factories(server.database.db);
  const account = await f.account('owner');
  token = (await f.apiKey(account.org.id, account.user.id)).token;
  otherToken = (await f.apiKey(account.org.id, account.user.id)).token;
  fixtures = createBaseApp(server.deps, { name: 'resource' });
  registerMcp(fixtures, server.deps, FIXTURE_ENGINE);
  url = `${await fixtures.listen({ host: '127.0.0.1', port: 0 })}/mcp`;
  another = createBaseApp(server.deps, { name: 'resource' });
  registerMcp(another, server.deps, FIXTURE_ENGINE);
  anotherUrl = `${await another.listen({ host: '127.0.0.1', port: 0 })}/mcp`;
});
afterAll(async () => {
  await another?.close();
  await fixtures?.close();
  await server?.close();
});

async function connect(capabilities: Record<string, unknown> = {}) {
  const client = new Client({ name: 'conversation-test', version: '1.0.0' }, { capabilities });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return { client, transport };
}

const headers = (bearer: string, session: string) => ({
  authorization: `Bearer ${bearer}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
  'mcp-session-id': session,
});

describe('MCP 2025: a call that talks to its client', () => {
  it("sends the log messages the session's level lets through", async () => {
    const { client } = await connect();
    const logged: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logged.push(String(notification.params.data));
    });
    try {
      await client.setLoggingLevel('warning');
      await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
      expect(logged).toEqual([]);
      await client.setLoggingLevel('info');
      await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
      expect(logged).toEqual(['Tool execution started', 'Tool processing data', 'Tool execution completed']);
    } finally {
      await client.close();
    }
  });

  it('asks only a client whose initialize declared the capability', async () => {
    const { client } = await connect({ sampling: {} });
    try {
      await expect(
        client.callTool({ name: 'test_elicitation', arguments: { message: 'Name?' } }),
      ).rejects.toThrow('the client did not declare the elicitation capability');
    } finally {
      await client.close();
    }
  });

  it('takes the answer from the credential asked only, and hands it to the waiting call, wherever it lands', async () => {
    const { client, transport } = await connect({ elicitation: {} });
    let asked: (id: string) => void = () => {};
    const question = new Promise<string>((resolve) => {
      asked = resolve;
    });
    // The client answers through the test below, by hand: its own handler never settles.
    client.setRequestHandler(ElicitRequestSchema, (_request, extra) => {
      asked(String(extra.requestId));
      return new Promise(() => {});
    });
    try {
      const call = client.callTool({ name: 'test_elicitation', arguments: { message: 'Name?' } });
      const id = await question;
      const session = transport.sessionId ?? '';
      // Both reach the other server: it passes them on to the one whose call waits.
      const reply = (bearer: string, name: string) =>
        fetch(anotherUrl, {
          method: 'POST',
          headers: headers(bearer, session),
          body: JSON.stringify({
            jsonrpc: '2.0',
            id,
            result: { action: 'accept', content: { response: name } },
          }),
        });
      expect((await reply(otherToken, 'Mallory')).status).toBe(202);
      expect((await reply(token, 'Alice')).status).toBe(202);
      const result = (await call) as { content: Array<{ text: string }> };
      expect(result.content[0]?.text).toBe('User response: action=accept, content={"response":"Alice"}');
    } finally {
      await client.close();
    }
  });
});
