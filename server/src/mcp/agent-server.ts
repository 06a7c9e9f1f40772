import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CancelTaskRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Identity } from '../auth/identity';
import type { Deps } from '../deps';
import { APPS_EXTENSION } from './app';
import type { Method, RpcContext } from './rpc';
import { type ToolNames, underscored } from './tool-list';

const INSTRUCTIONS =
  'Beckon reaches the people of your organization. Use service.notify to tell them something and ' +
  'service.ask to ask a question with a form. People answer in minutes or hours: run service.ask ' +
  'as a task (tasks/result returns the outcome), or pass wait_seconds (at most 50) and call ' +
  'service.get with wait_seconds until the item is no longer open; the event stream GET /mcp/sse ' +
  'reports every change. Item ids are UUIDs returned by these tools.';

/** What `initialize` advertises: the tools, and tasks for `tools/call` (protocol 2025-11-25). */
export const CAPABILITIES = {
  tools: { listChanged: false },
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
};

const SCHEMAS = {
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
  'tasks/get': GetTaskRequestSchema,
  'tasks/result': GetTaskPayloadRequestSchema,
  'tasks/cancel': CancelTaskRequestSchema,
  'tasks/list': ListTasksRequestSchema,
} as const;
/** For a client that declared the MCP App: the page is a resource. */
const APP_SCHEMAS = {
  'resources/list': ListResourcesRequestSchema,
  'resources/read': ReadResourceRequestSchema,
} as const;

/**
 * The SDK's MCP server for one request (stateless Streamable HTTP), for what the lean path of
 * http/mcp.ts leaves to it: initialize, notifications, batches, and calls that stream progress.
 * Each method is the same function as on the lean path (rpc.ts), bound to the request's identity.
 */
export function agentServer(
  deps: Deps,
  identity: Identity,
  protocolVersion: string | undefined,
  names: ToolNames,
  apps: boolean,
  methods: Record<string, Method>,
  shutdown: AbortSignal,
): Server {
  const server = new Server(
    { name: 'beckon', version: '0.1.0' },
    {
      capabilities: apps
        ? { ...CAPABILITIES, resources: {}, extensions: { [APPS_EXTENSION]: {} } }
        : CAPABILITIES,
      instructions: names === 'underscore' ? underscored(INSTRUCTIONS) : INSTRUCTIONS,
    },
  );
  for (const [method, schema] of Object.entries(apps ? { ...SCHEMAS, ...APP_SCHEMAS } : SCHEMAS)) {
    const handle = methods[method];
    if (!handle) continue;
    server.setRequestHandler(schema, async (request, extra) => {
      const params = (request.params ?? {}) as Record<string, unknown> & {
        _meta?: { progressToken?: string | number };
      };
      const token = params._meta?.progressToken;
      const signal = AbortSignal.any([extra.signal, shutdown]);
      const ctx: RpcContext = { deps, identity, protocolVersion, signal, names, apps };
      if (token !== undefined) {
        ctx.progress = (progress, total, message) =>
          extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress, total, message },
          });
      }
      return (await handle(ctx, params)) as never;
    });
  }
  return server;
}
