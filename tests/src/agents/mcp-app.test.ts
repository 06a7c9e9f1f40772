import { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { type Browser, chromium, type Frame, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, MCP_ACCEPT, startReceiver, startTestServer, type TestServer } from '../harness';
import { CHROMIUM, CHROMIUM_ARGS } from '../web/browser';

const UI = 'io.modelcontextprotocol/ui';
const APP_MIME = 'text/html;profile=mcp-app';
const FORM = {
  id: 'release',
  fields: [
    { id: 'ship', type: 'yesno', label: 'Ship it?', required: true },
    {
      id: 'env',
      type: 'select',
      label: 'Where',
      options: [
        { value: 'staging', label: 'Staging' },
        { value: 'prod', label: 'Production' },
      ],
    },
    { id: 'note', type: 'text', label: 'Note' },
    { id: 'replicas', type: 'number', label: 'Replicas', min: 1, max: 9 },
  ],
};

type Tool = { name: string; _meta?: { ui?: { resourceUri?: string; visibility?: string[] } } };
type Item = { id: string; status: string; response: unknown; answered_via: string | null };

let server: TestServer;
let f: Factories;
let browser: Browser;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startTestServer({ worker: true });
  f = new Factories(server.database.db);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await browser?.close();
  await server?.close();
});

async function agentAccount() {
  const account = await f.account('owner');
  const key = await f.apiKey(account.org.id, account.user.id);
  return { ...account, key, person: server.resource.as(account.token) };
}

/** The SDK's client at 2025-11-25, declaring the Apps extension (or not); the session ids it got. */
async function connect(token: string, apps: boolean) {
  const sessions: Array<string | null> = [];
  const transport = new StreamableHTTPClientTransport(new URL(`${server.resource.baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: async (url, init) => {
      const response = await fetch(url, init);
      sessions.push(response.headers.get('mcp-session-id'));
      return response;
    },
  });
  const client = new Client(
    { name: 'apps-host', version: '1.0.0' },
    { capabilities: apps ? { extensions: { [UI]: { mimeTypes: [APP_MIME] } } } : {} },
  );
  await client.connect(transport);
  clients.push(client);
  return { client, sessions };
}

/**
 * A host page around the App: the page's iframe holds the HTML of `resources/read`, and its
 * postMessage traffic is relayed to the ext-apps AppBridge running here, which forwards the App's
 * `tools/call` to Beckon through the MCP client.
 */
async function host(page: Page): Promise<{ transport: Transport; load: (html: string) => Promise<void> }> {
  const transport: Transport = {
    start: async () => {},
    close: async () => {},
    send: async (message: JSONRPCMessage) => {
      await page.evaluate((m) => {
        const w = globalThis as unknown as {
          document: {
            querySelector: (s: string) => { contentWindow: { postMessage: (m: unknown, o: string) => void } };
          };
        };
        w.document.querySelector('iframe').contentWindow.postMessage(m, '*');
      }, message);
    },
  };
  await page.exposeBinding('toHost', (_source, message: JSONRPCMessage) => transport.onmessage?.(message));
  await page.setContent('<!DOCTYPE html><html><body></body></html>');
  const load = async (html: string) => {
    await page.evaluate((srcdoc) => {
      const w = globalThis as unknown as {
        document: {
          createElement: (t: string) => Record<string, unknown>;
          body: { append: (n: unknown) => void };
        };
        addEventListener: (t: string, h: (e: { source: unknown; data: unknown }) => void) => void;
        toHost: (m: unknown) => void;
      };
      const frame = w.document.createElement('iframe');
      frame.sandbox = 'allow-scripts';
      frame.srcdoc = srcdoc;
      w.addEventListener('message', (event) => {
        if (event.source === frame.contentWindow) w.toHost(event.data);
      });
      w.document.body.append(frame);
    }, html);
  };
  return { transport, load };
}

async function appFrame(page: Page): Promise<Frame> {
  await page.waitForSelector('iframe');
  const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
  if (!frame) throw new Error('no app frame');
  return frame;
}

describe('the MCP App for answering', () => {
  it('is offered only to a client that declared the Apps extension', async () => {
    const { key } = await agentAccount();
    const plain = await connect(key.token, false);
    const plainTools = (await plain.client.listTools()).tools as Tool[];
    expect(plainTools.some((tool) => tool._meta?.ui)).toBe(false);
    expect(plainTools.map((tool) => tool.name)).not.toContain('service.answer');
    expect(plain.sessions.every((session) => session === null)).toBe(true);
    expect(plain.client.getServerCapabilities()?.resources).toBeUndefined();

    const apps = await connect(key.token, true);
    expect(apps.sessions[0]).toEqual(expect.any(String));
    expect(apps.client.getServerCapabilities()).toMatchObject({ resources: {}, extensions: { [UI]: {} } });
    const tools = (await apps.client.listTools()).tools as Tool[];
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('service.ask')?._meta?.ui).toEqual({ resourceUri: 'ui://beckon/answer' });
    expect(byName.get('service.get')?._meta?.ui).toEqual({ resourceUri: 'ui://beckon/answer' });
    expect(byName.get('service.notify')?._meta).toBeUndefined();
    expect(byName.get('service.answer')?._meta?.ui).toEqual({
      resourceUri: 'ui://beckon/answer',
      visibility: ['app'],
    });
    const { resources } = await apps.client.listResources();
    expect(resources).toEqual([expect.objectContaining({ uri: 'ui://beckon/answer', mimeType: APP_MIME })]);
    const read = await apps.client.readResource({ uri: 'ui://beckon/answer' });
    expect(read.contents[0]).toMatchObject({ uri: 'ui://beckon/answer', mimeType: APP_MIME });
    const html = String((read.contents[0] as { text: string }).text);
    expect(html).toMatch(/^<!DOCTYPE html>/);
    // Self-contained: no script, style or frame from elsewhere.
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|<iframe/);
    // It carries ext-apps' App class (whose warnings start so).
    expect(html).toContain('[ext-apps]');

    // A session id Beckon did not issue to this credential carries no declaration.
    const { key: otherKey } = await agentAccount();
    const forged = await fetch(`${server.resource.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${otherKey.token}`,
        'content-type': 'application/json',
        accept: MCP_ACCEPT,
        'mcp-protocol-version': '2025-11-25',
        'mcp-session-id': String(apps.sessions[0]),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    const listed = (await forged.json()) as { result: { tools: Tool[] } };
    expect(listed.result.tools.map((tool) => tool.name)).not.toContain('service.answer');
  });

  it('at 2026-07-28 follows the capabilities each request declares', async () => {
    const { key } = await agentAccount();
    const list = async (capabilities: Record<string, unknown>) => {
      const response = await fetch(`${server.resource.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key.token}`,
          'content-type': 'application/json',
          accept: MCP_ACCEPT,
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/list',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/list',
          params: {
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': capabilities,
            },
          },
        }),
      });
      return ((await response.json()) as { result: { tools: Tool[] } }).result.tools;
    };
    const declared = await list({ extensions: { [UI]: { mimeTypes: [APP_MIME] } } });
    expect(declared.find((tool) => tool.name === 'service_ask')?._meta?.ui?.resourceUri).toBe(
      'ui://beckon/answer',
    );
    expect(declared.map((tool) => tool.name)).toContain('service_answer');
    const other = await list({ extensions: { [UI]: { mimeTypes: ['text/plain'] } } });
    expect(other.some((tool) => tool._meta?.ui)).toBe(false);
    expect(other.map((tool) => tool.name)).not.toContain('service_answer');
  });

  it('renders the question in a host and records the answer it posts back', async () => {
    const { key, user, person } = await agentAccount();
    const hook = await startReceiver();
    const page = await browser.newPage();
    try {
      const { client } = await connect(key.token, true);
      const args = {
        title: 'Release 4.2?',
        message: 'All checks green.',
        form: FORM,
        callback_url: `${hook.url}/cb`,
      };
      const asked = (await client.callTool({ name: 'service.ask', arguments: args })) as CallToolResult;
      const item = asked.structuredContent as Item;
      const read = await client.readResource({ uri: 'ui://beckon/answer' });
      const { transport, load } = await host(page);

      const bridge = new AppBridge(
        client,
        { name: 'test-host', version: '1.0.0' },
        { serverTools: {}, openLinks: {} },
      );
      const initialized = new Promise<void>((resolve) => {
        bridge.oninitialized = () => resolve();
      });
      await bridge.connect(transport);
      await load(String((read.contents[0] as { text: string }).text));
      await initialized;
      // The App's ui/initialize: who the page is and what it can do.
      expect(bridge.getAppVersion()).toEqual({ name: 'beckon-answer', version: '1.0.0' });
      expect(bridge.getAppCapabilities()).toEqual({ availableDisplayModes: ['inline'] });
      await bridge.sendToolInput({ arguments: args });
      await bridge.sendToolResult(asked);

      const frame = await appFrame(page);
      // The title shows from the tool's input, the message once the result is there.
      await frame.getByText('All checks green.').waitFor();
      expect(await frame.getByText('Release 4.2?').count()).toBe(1);

      // A required field left empty: refused by the form's validation, the item stays open and
      // what was entered stays in the form.
      await frame.locator('input[name=note]').fill('go');
      await frame.getByRole('button', { name: 'Send answer' }).click();
      await frame.getByText('- ship: required').waitFor();
      expect((await person.get<Item>(`/api/items/${item.id}`)).body.status).toBe('open');
      expect(await frame.locator('input[name=note]').inputValue()).toBe('go');

      await frame.getByLabel('Yes').check();
      await frame.locator('select[name=env]').selectOption('prod');
      await frame.locator('input[name=replicas]').fill('3');
      await frame.getByRole('button', { name: 'Send answer' }).click();
      await frame.getByText('Answer recorded.').waitFor();

      const answered = (await person.get<Item & { answered_by: unknown }>(`/api/items/${item.id}`)).body;
      expect(answered).toMatchObject({
        status: 'answered',
        response: { ship: true, env: 'prod', note: 'go', replicas: 3 },
        answered_via: 'mcp',
        answered_by: { type: 'user', id: user.id },
      });
      const [callback] = await hook.waitFor(1);
      expect(JSON.parse(callback!.body)).toMatchObject({ item_id: item.id });
    } finally {
      await page.close();
      await hook.close();
    }
  });
});
