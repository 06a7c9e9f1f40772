import { writeFile } from 'node:fs/promises';
import { createServer, type Server as HttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, freePort, type HttpClient, startTestServer, type TestServer } from '../harness';
// @ts-expect-error: a plain JavaScript module (the test's wrapped server), without declarations.
import { notesServer } from './notes-server.mjs';
import { gateItems as gateItems_, openQuestion } from './questions';

const BIN = fileURLToPath(new URL('../../../mcp/bin/beckon-mcp.mjs', import.meta.url));
const NOTES_SERVER = fileURLToPath(new URL('./notes-server.mjs', import.meta.url));

type Item = { id: string; title: string; message: string; status: string; tags: string[]; priority: number };
type Result = { content: Array<{ type: string; text: string }>; isError?: boolean };

let server: TestServer;
let person: HttpClient;
let agentToken: string;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startTestServer();
  const f = new Factories(server.database.db);
  const account = await f.account('owner');
  person = server.resource.as(account.token);
  agentToken = (await f.apiKey(account.org.id, account.user.id)).token;
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await server?.close();
});

/** An MCP host (the official SDK's client) launching `beckon-mcp gate` with these arguments. */
async function host(args: string[], env: Record<string, string> = {}) {
  const client = new Client({ name: 'host', version: '1.0.0' });
  clients.push(client);
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'gate', ...args],
      env: {
        ...(process.env as Record<string, string>),
        BECKON_URL: server.resource.baseUrl,
        BECKON_TOKEN: agentToken,
        ...env,
      },
      stderr: 'pipe',
    }),
  );
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args }) as Promise<Result>;
const notes = async (client: Client) =>
  JSON.parse((await call(client, 'read_notes')).content[0]!.text) as string[];

const gateItems = () => gateItems_<Item>(person);
const question = (prefix: string) => openQuestion<Item>(person, prefix);

const answer = async (id: string, values: Record<string, unknown>) =>
  expect((await person.post(`/api/items/${id}/answer`, { values })).status).toBe(200);

describe('beckon-mcp gate over a stdio server', () => {
  it('relays tools, annotations and resources; read-only tools run without asking', async () => {
    const client = await host(['--', process.execPath, NOTES_SERVER]);
    expect(client.getServerVersion()).toMatchObject({ name: 'notes' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => [t.name, t.annotations])).toEqual([
      ['read_notes', { readOnlyHint: true }],
      ['add_note', { readOnlyHint: false, destructiveHint: false }],
      ['delete_notes', { destructiveHint: true }],
    ]);
    const resource = await client.readResource({ uri: 'notes://all' });
    expect(resource.contents[0]).toMatchObject({ uri: 'notes://all', text: '["first note"]' });
    const before = (await gateItems()).length;
    expect(await notes(client)).toEqual(['first note']);
    expect((await gateItems()).length).toBe(before);
  });

  it('holds a destructive call for a person: a denial is a tool error with the note, "allow for" passes the next calls', async () => {
    const client = await host(['--', process.execPath, NOTES_SERVER]);
    const refused = call(client, 'delete_notes', { reason: 'cleanup' });
    const asked = await question('delete_notes (notes): cleanup');
    expect(asked.priority).toBe(4);
    expect(asked.message).toContain('"reason": "cleanup"');
    expect(asked.message).toContain('may be destructive');
    await answer(asked.id, { decision: 'deny', note: 'keep them, they are the audit trail' });
    expect(await refused).toEqual({
      content: [
        { type: 'text', text: 'Denied by a person through Beckon: keep them, they are the audit trail' },
      ],
      isError: true,
    });
    expect(await notes(client)).toEqual(['first note']);

    const allowed = call(client, 'delete_notes', { reason: 'really' });
    await answer((await question('delete_notes (notes): really')).id, { decision: 'allow_for' });
    expect((await allowed).isError).toBeUndefined();
    expect(await notes(client)).toEqual([]);

    // The grant covers the tool: no new question.
    const deletes = async () => (await gateItems()).filter((i) => i.title.startsWith('delete_notes')).length;
    const count = await deletes();
    expect((await call(client, 'delete_notes', { reason: 'again' })).isError).toBeUndefined();
    expect(await deletes()).toBe(count);
  });

  it('follows a policy file: deny rules refuse at once, allow rules pass, nothing asked', async () => {
    const policy = path.join(tmpdir(), `mcp-gate-${Date.now()}.json`);
    await writeFile(policy, JSON.stringify({ allow: ['add_*'], deny: ['delete_*'], default: 'deny' }));
    const client = await host(['--policy', policy, '--', process.execPath, NOTES_SERVER]);
    const before = (await gateItems()).length;
    expect(await call(client, 'delete_notes')).toEqual({
      content: [{ type: 'text', text: 'Denied by the gate policy rule delete_*' }],
      isError: true,
    });
    expect((await call(client, 'add_note', { text: 'second' })).isError).toBeUndefined();
    expect((await call(client, 'read_notes')).isError).toBe(true);
    expect((await gateItems()).length).toBe(before);
  });

  it('refuses a held call when Beckon cannot be reached', async () => {
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const client = await host(['--', process.execPath, NOTES_SERVER], { BECKON_URL: nobody });
    const result = await call(client, 'delete_notes');
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/^Beckon could not be asked \(.+\): denied$/);
    expect(await notes(client)).toEqual(['first note']);
  });
});

describe('beckon-mcp gate over a Streamable HTTP server', () => {
  let http: HttpServer;
  let url: string;
  const shared = ['on the web'];
  beforeAll(async () => {
    http = createServer(async (req, res) => {
      if (req.headers.authorization !== 'Bearer upstream-secret') {
        res.writeHead(401).end();
        return;
      }
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await notesServer(shared).connect(transport);
      await transport.handleRequest(req, res);
    });
    const port = await freePort();
    await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${port}/mcp`;
  });
  afterAll(async () => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });

  it('sends the given headers and holds a call until a person allows it', async () => {
    const client = await host(['--header', 'Authorization: Bearer upstream-secret', url]);
    expect(await notes(client)).toEqual(['on the web']);
    const pending = call(client, 'add_note', { text: 'from the gate' });
    const asked = await question('add_note (notes): from the gate');
    expect(asked.priority).toBe(3);
    await answer(asked.id, { decision: 'allow', note: 'fine' });
    expect((await pending).isError).toBeUndefined();
    expect(shared).toEqual(['on the web', 'from the gate']);
  });
});
