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
  ListResourcesRequestSchema,
  ListTasksRequestSchema,
  ListTasksResultSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  ReadResourceResultSchema,
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

/** The MCP Apps extension (ext-apps) and the resource type of an App's page. */
const APPS_EXTENSION = 'io.modelcontextprotocol/ui';
const APP_MIME_TYPE = 'text/html;profile=mcp-app';

type Listed = { tools: Array<{ _meta?: Record<string, unknown> }> };
type Resources = { resources: Array<{ uri: string }> };

/**
 * What a host that renders no Apps is shown: no tool only an App calls (`visibility: ["app"]`),
 * no page named in a tool's `_meta`, no `ui://` page among the resources; as the server itself
 * answers a client that declares no Apps.
 */
function withoutApps(listed: Listed): Listed {
  const tools = listed.tools.filter((tool) => {
    const visibility = (tool._meta?.ui as { visibility?: unknown } | undefined)?.visibility;
    return !Array.isArray(visibility) || visibility.includes('model');
  });
  return {
    ...listed,
    tools: tools.map(({ _meta, ...tool }) => {
      const { ui: _ui, 'ui/resourceUri': _uri, ...rest } = _meta ?? {};
      return Object.keys(rest).length > 0 ? { ...tool, _meta: rest } : tool;
    }),
  };
}

/**
 * An MCP server on stdin/stdout for hosts that launch tools as processes. It holds no tools of its
 * own: `tools/list`, `tools/call`, and (when the server offers them) `tasks/*` and `resources/*`
 * (the MCP App's page) go to the Beckon server's `POST /mcp` with the bearer token, and its
 * results and JSON-RPC errors (code and data) come back unchanged. Resolves when the host closes
 * stdin.
 */
export async function serveMcp(options: BridgeOptions): Promise<void> {
  // The bridge declares Apps to the server, and shows them to the hosts that declare them too.
  const upstream = new Client(
    { name: 'beckon-mcp', version },
    { capabilities: { extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } } },
  );
  const endpoint = new URL(`${options.url.replace(/\/+$/, '')}/mcp`);
  await upstream.connect(
    new StreamableHTTPClientTransport(endpoint, {
      requestInit: { headers: { authorization: `Bearer ${options.token}` } },
    }),
  );
  const info = upstream.getServerVersion();
  const instructions = upstream.getInstructions();
  const offered = upstream.getServerCapabilities();
  const tasks = offered?.tasks;
  const resources = offered?.resources !== undefined;
  const extensions = offered?.extensions;
  const server = new Server(
    { name: info?.name ?? 'beckon', version: info?.version ?? version },
    {
      capabilities: {
        tools: {},
        ...(tasks ? { tasks } : {}),
        ...(resources ? { resources: {} } : {}),
        ...(extensions ? { extensions } : {}),
      },
      ...(instructions ? { instructions } : {}),
    },
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
  const hostApps = () => {
    const declared = server.getClientCapabilities()?.extensions?.[APPS_EXTENSION] as
      | { mimeTypes?: unknown }
      | undefined;
    return Array.isArray(declared?.mimeTypes) && declared.mimeTypes.includes(APP_MIME_TYPE);
  };
  const respelled = <T>(result: T): T =>
    underscore() ? JSON.parse(underscored(JSON.stringify(result))) : result;
  // The server takes either spelling in tools/call: the list is respelled, and the App's page
  // (which names the tool it calls).
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const listed = await upstream.listTools(request.params);
    return respelled(hostApps() ? listed : (withoutApps(listed as Listed) as typeof listed));
  });
  if (resources) {
    server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
      const listed = await upstream.listResources(request.params);
      if (hostApps()) return listed;
      return {
        ...listed,
        resources: (listed as Resources).resources.filter((r) => !r.uri.startsWith('ui://')),
      };
    });
    server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) =>
      respelled(await forward('resources/read', ReadResourceResultSchema)(request, extra)),
    );
  }
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
