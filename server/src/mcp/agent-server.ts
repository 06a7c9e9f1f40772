import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CancelTaskRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListTasksRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
  type ServerCapabilities,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Identity } from '../auth/identity';
import type { Deps } from '../deps';
import { APPS_EXTENSION } from './app';
import { CLIENT_REQUESTS, type Conversations } from './conversation';
import type { McpEngine } from './engine';
import type { LegacySession } from './legacy-session';
import { type RpcContext, RpcError } from './rpc';
import type { ToolNames } from './tool-list';

const SCHEMAS = {
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
  'tasks/get': GetTaskRequestSchema,
  'tasks/result': GetTaskPayloadRequestSchema,
  'tasks/cancel': CancelTaskRequestSchema,
  'tasks/list': ListTasksRequestSchema,
  'resources/list': ListResourcesRequestSchema,
  'resources/read': ReadResourceRequestSchema,
  'resources/templates/list': ListResourceTemplatesRequestSchema,
  'resources/subscribe': SubscribeRequestSchema,
  'resources/unsubscribe': UnsubscribeRequestSchema,
  'prompts/list': ListPromptsRequestSchema,
  'prompts/get': GetPromptRequestSchema,
  'completion/complete': CompleteRequestSchema,
  'logging/setLevel': SetLevelRequestSchema,
} as const;

/** The capability a method needs, as the SDK's server checks it. */
function advertised(capabilities: ServerCapabilities, method: string): boolean {
  const family = method.split('/')[0];
  if (family === 'resources') return capabilities.resources !== undefined;
  if (family === 'prompts') return capabilities.prompts !== undefined;
  if (family === 'completion') return capabilities.completions !== undefined;
  if (family === 'logging') return capabilities.logging !== undefined;
  return true;
}

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
  session: LegacySession,
  engine: McpEngine['legacy'],
  conversations: Conversations,
  shutdown: AbortSignal,
): Server {
  const { apps } = session;
  const capabilities = apps
    ? {
        ...engine.capabilities,
        resources: engine.capabilities.resources ?? {},
        extensions: { ...engine.capabilities.extensions, [APPS_EXTENSION]: {} },
      }
    : engine.capabilities;
  const instructions = engine.instructions(names);
  const server = new Server(
    { name: 'beckon', version: '0.1.0' },
    { capabilities, ...(instructions ? { instructions } : {}) },
  );
  for (const [method, schema] of Object.entries(SCHEMAS)) {
    const handle = engine.methods[method];
    // Only what the capabilities advertise (the SDK refuses a handler beyond them).
    if (!handle || !advertised(capabilities, method)) continue;
    server.setRequestHandler(schema, async (request, extra) => {
      const params = (request.params ?? {}) as Record<string, unknown> & {
        _meta?: { progressToken?: string | number };
      };
      const token = params._meta?.progressToken;
      const signal = AbortSignal.any([extra.signal, shutdown]);
      const ctx: RpcContext = { deps, identity, protocolVersion, signal, names, apps };
      if (engine.converses?.(method, params)) {
        const related = { relatedRequestId: extra.requestId };
        ctx.ask = async (asked, askedParams) => {
          const needs = CLIENT_REQUESTS[asked];
          if (!needs || !session.accepts.includes(needs))
            throw new RpcError(-32600, `the client did not declare the ${needs ?? asked} capability`);
          const send = async (message: Record<string, unknown>) =>
            server.transport?.send(message as never, related);
          return conversations.ask(identity, send, asked, askedParams, signal);
        };
        ctx.log = async (level, data, logger) => {
          if (!conversations.logs(session.id, level)) return;
          await extra.sendNotification({
            method: 'notifications/message',
            params: { level: level as never, data, ...(logger ? { logger } : {}) },
          });
        };
      }
      const sessionId = session.id;
      if (sessionId !== undefined) ctx.setLogLevel = (level) => conversations.setLevel(sessionId, level);
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
