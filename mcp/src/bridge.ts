import type { Readable, Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  CancelTaskRequestSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  GetTaskResultSchema,
  ListTasksRequestSchema,
  ListTasksResultSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { version } from '../package.json';

export type BridgeOptions = {
  /** The Beckon resource server's origin, e.g. `https://beckon.example.com`. */
  url: string;
  /** An agent's API key (or another bearer token the server accepts). */
  token: string;
  /**
   * How tool names are spelled for the host: `dotted` (`service.notify`), `underscore`
   * (`service_notify`), or `auto` (the default): underscores for hosts whose declared name says
   * they refuse dots (HOSTS_WITHOUT_DOTS), the specification's dotted names for the others.
   */
  toolNames?: 'auto' | 'dotted' | 'underscore';
  /** Defaults to this process's stdin and stdout. */
  stdin?: Readable;
  stdout?: Writable;
};

/** Hosts that accept only tool names matching `^[a-zA-Z0-9_-]{1,64}$`, by their declared name. */
export const HOSTS_WITHOUT_DOTS = /claude|codex|copilot|cursor/i;

/** `service.get` → `service_get`, in names and wherever a definition names a tool. */
const underscored = (text: string) => text.replace(/\bservice\.([a-z_]+)/g, 'service_$1');

/**
 * An MCP server on stdin/stdout for hosts that launch tools as processes. It holds no tools of its
 * own: `tools/list`, `tools/call` and (when the server offers them) `tasks/*` go to the Beckon
 * server's `POST /mcp` with the bearer token, and its results and JSON-RPC errors (code and data)
 * come back unchanged. Resolves when the host closes stdin.
 */
export async function serveMcp(options: BridgeOptions): Promise<void> {
  const upstream = new Client({ name: 'beckon-mcp', version });
  const endpoint = new URL(`${options.url.replace(/\/+$/, '')}/mcp`);
  await upstream.connect(
    new StreamableHTTPClientTransport(endpoint, {
      requestInit: { headers: { authorization: `Bearer ${options.token}` } },
    }),
  );
  const info = upstream.getServerVersion();
  const instructions = upstream.getInstructions();
  const tasks = upstream.getServerCapabilities()?.tasks;
  const server = new Server(
    { name: info?.name ?? 'beckon', version: info?.version ?? version },
    { capabilities: { tools: {}, ...(tasks ? { tasks } : {}) }, ...(instructions ? { instructions } : {}) },
  );
  // Raw requests: the upstream client's own helpers would check results the host checks itself.
  // A host that gives up (or cancels) ends the upstream request too; tasks/result waits as long as
  // the host does, not the client's default minute; progress of a waiting call reaches the host.
  type Extra = Parameters<Parameters<typeof server.setRequestHandler>[1]>[1];
  const forward =
    <T extends Parameters<typeof upstream.request>[1]>(method: string, schema: T, timeout?: number) =>
    (request: { params?: { _meta?: { progressToken?: string | number } } }, extra: Extra) => {
      const token = request.params?._meta?.progressToken;
      return upstream.request({ method, params: request.params } as never, schema, {
        signal: extra.signal,
        timeout,
        ...(token === undefined
          ? {}
          : {
              onprogress: (progress) =>
                void extra.sendNotification({
                  method: 'notifications/progress',
                  params: { ...progress, progressToken: token },
                }),
            }),
      });
    };
  const spelling = options.toolNames ?? 'auto';
  const underscore = () =>
    spelling === 'underscore' ||
    (spelling === 'auto' && HOSTS_WITHOUT_DOTS.test(server.getClientVersion()?.name ?? ''));
  // The server takes either spelling in tools/call: only the list is respelled.
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const listed = await upstream.listTools(request.params);
    return underscore() ? JSON.parse(underscored(JSON.stringify(listed))) : listed;
  });
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    request.params.task
      ? forward('tools/call', CreateTaskResultSchema)(request, extra)
      : forward('tools/call', CallToolResultSchema)(request, extra),
  );
  if (tasks) {
    server.setRequestHandler(GetTaskRequestSchema, forward('tasks/get', GetTaskResultSchema));
    server.setRequestHandler(
      GetTaskPayloadRequestSchema,
      forward('tasks/result', CallToolResultSchema, 2 ** 31 - 1),
    );
    server.setRequestHandler(ListTasksRequestSchema, forward('tasks/list', ListTasksResultSchema));
    server.setRequestHandler(CancelTaskRequestSchema, forward('tasks/cancel', CancelTaskResultSchema));
  }

  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  await server.connect(new StdioServerTransport(stdin, stdout));
  // The host ends the session by closing our stdin.
  stdin.once('end', () => void server.close());
  await closed;
  await upstream.close();
}
