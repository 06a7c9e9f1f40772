import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { createCaller } from '../app-router';
import type { Identity } from '../auth/identity';
import type { Deps } from '../deps';
import { AppError, fieldsFromZod, toAppError, toJsonRpcError } from '../errors';
import { AGENT_TOOLS, type AgentTool } from './tools';

const INSTRUCTIONS =
  'Beckon reaches the people of your organization. Use service.notify to tell them something and ' +
  'service.ask to ask a question with a form; follow answers with service.list (status=answered) ' +
  'or the event stream GET /mcp/sse. Item ids are UUIDs returned by these tools.';

/** The JSON Schema of a tool's arguments, as MCP clients (and the models behind them) read it. */
function inputSchema(tool: AgentTool) {
  const { $schema: _, ...schema } = z.toJSONSchema(tool.input, {
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return schema as { type: 'object'; properties?: Record<string, unknown> };
}

const TOOL_LIST = AGENT_TOOLS.map((tool) => ({
  name: tool.name,
  description: tool.description,
  inputSchema: inputSchema(tool),
}));
const TOOLS = new Map(AGENT_TOOLS.map((tool) => [tool.name, tool]));

/** A JSON-RPC error carrying the REST body as `data` (and the quota's -32002). */
function rpcError(error: AppError) {
  const { code, message, data } = toJsonRpcError(error);
  return Object.assign(new Error(message), { code, data });
}

/** Protocol revisions that know `structuredContent` in tool results. */
const structured = (protocolVersion: string | undefined) => (protocolVersion ?? '') >= '2025-06-18';

/**
 * The MCP server of one request (stateless Streamable HTTP): the eight tools, each calling its
 * tRPC procedure through a caller bound to the request's identity, so authentication,
 * permissions, validation, quota and errors are exactly those of REST.
 */
export function agentServer(deps: Deps, identity: Identity, protocolVersion: string | undefined): Server {
  const server = new Server(
    { name: 'beckon', version: '0.1.0' },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOL_LIST }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = TOOLS.get(request.params.name);
    if (!tool) {
      throw Object.assign(new Error(`unknown tool: ${request.params.name}`), {
        code: ErrorCode.InvalidParams,
      });
    }
    const args = request.params.arguments ?? {};
    const parsed = tool.input.safeParse(args);
    if (!parsed.success) throw rpcError(AppError.invalid(fieldsFromZod(parsed.error.issues)));
    const key = tool.creates ? (args as { idempotency_key?: string }).idempotency_key : undefined;
    const caller = createCaller({
      deps,
      token: null,
      identity,
      idempotencyKey: key ?? null,
      responseHeaders: {},
    });
    let result: unknown;
    try {
      result = await tool.call(caller, args as never);
    } catch (error) {
      throw rpcError(toAppError(error));
    }
    return {
      content: [{ type: 'text' as const, text: JSON.stringify(result) }],
      ...(structured(protocolVersion) ? { structuredContent: result as Record<string, unknown> } : {}),
    };
  });
  return server;
}
