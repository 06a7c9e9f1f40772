import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

let server: TestServer;
let token: string;

beforeAll(async () => {
  server = await startTestServer();
  const f = new Factories(server.database.db);
  const account = await f.account('owner');
  token = (await f.apiKey(account.org.id, account.user.id)).token;
});
afterAll(async () => {
  await server?.close();
});

/** The bridge from source (`beckon-mcp`), as a host launches it, with the host's declared name. */
async function host(name: string, args: string[] = []) {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'mcp/src/bin.ts', ...args],
      cwd: root,
      env: { ...process.env, BECKON_URL: server.resource.baseUrl, BECKON_TOKEN: token } as Record<
        string,
        string
      >,
      stderr: 'pipe',
    }),
  );
  return client;
}

describe('@beckon/mcp tool names', () => {
  it('lists service_* names to hosts that refuse dots, by their declared name, and calls them', async () => {
    const client = await host('claude-ai');
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('service_notify');
      for (const tool of tools) expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(JSON.stringify(tools)).not.toMatch(/service\.[a-z]/);
      const result = (await client.callTool({ name: 'service_notify', arguments: { title: 'Bridged' } })) as {
        content: Array<{ text: string }>;
      };
      expect(JSON.parse(result.content[0]!.text)).toMatchObject({ title: 'Bridged', status: 'open' });
    } finally {
      await client.close();
    }
  });

  it('keeps the dotted names for other hosts, unless told otherwise', async () => {
    const other = await host('some-editor');
    try {
      expect((await other.listTools()).tools.map((t) => t.name)).toContain('service.notify');
    } finally {
      await other.close();
    }
    const told = await host('some-editor', ['--tool-names', 'underscore']);
    try {
      const names = (await told.listTools()).tools.map((t) => t.name);
      expect(names).toContain('service_ask');
      expect(names).not.toContain('service.ask');
    } finally {
      await told.close();
    }
  });
});
