import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
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

/** What a host that renders MCP Apps declares (ext-apps). */
const APPS = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };

/** The bridge from source (`beckon-mcp`), as a host launches it, with the host's declared name. */
async function host(name: string, args: string[] = [], capabilities: Record<string, unknown> = {}) {
  const client = new Client({ name, version: '1.0.0' }, { capabilities });
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

type Tool = { name: string; _meta?: { ui?: { resourceUri?: string; visibility?: string[] } } };

describe('@beckon/mcp and the MCP App', () => {
  it('shows a host that renders Apps the same App as POST /mcp shows such a client', async () => {
    const direct = new Client({ name: 'some-editor', version: '1.0.0' }, { capabilities: APPS });
    await direct.connect(
      new StreamableHTTPClientTransport(new URL(`${server.resource.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    const bridged = await host('some-editor', [], APPS);
    try {
      const tools = (await bridged.listTools()).tools as Tool[];
      expect(tools).toEqual((await direct.listTools()).tools);
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      expect(byName.get('service.ask')?._meta?.ui?.resourceUri).toBe('ui://beckon/answer');
      expect(byName.get('service.answer')?._meta?.ui?.visibility).toEqual(['app']);
      expect((await bridged.listResources()).resources.map((r) => r.uri)).toContain('ui://beckon/answer');
      const page = await bridged.readResource({ uri: 'ui://beckon/answer' });
      expect(page).toEqual(await direct.readResource({ uri: 'ui://beckon/answer' }));
      expect(page.contents[0]).toMatchObject({ mimeType: 'text/html;profile=mcp-app' });
      expect((page.contents[0] as { text?: string } | undefined)?.text).toContain(
        '"answerTool":"service.answer"',
      );
    } finally {
      await bridged.close();
      await direct.close();
    }
  });

  it("spells the page's answer tool as the host's list does", async () => {
    const bridged = await host('claude-ai', [], APPS);
    try {
      const names = ((await bridged.listTools()).tools as Tool[]).map((tool) => tool.name);
      expect(names).toContain('service_answer');
      const page = await bridged.readResource({ uri: 'ui://beckon/answer' });
      expect((page.contents[0] as { text?: string } | undefined)?.text).toContain(
        '"answerTool":"service_answer"',
      );
    } finally {
      await bridged.close();
    }
  });

  it('shows a host that declares no Apps neither the page nor the tool only an App calls', async () => {
    const bridged = await host('some-editor');
    try {
      const tools = (await bridged.listTools()).tools as Tool[];
      expect(tools.map((tool) => tool.name)).not.toContain('service.answer');
      expect(tools.map((tool) => tool.name)).toContain('service.ask');
      for (const tool of tools) expect(tool._meta?.ui).toBeUndefined();
      expect((await bridged.listResources()).resources.map((r) => r.uri)).not.toContain('ui://beckon/answer');
    } finally {
      await bridged.close();
    }
  });
});
