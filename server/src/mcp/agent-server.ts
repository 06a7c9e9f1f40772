import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { createCaller } from '../app-router';
import type { Identity } from '../auth/identity';
import type { Deps } from '../deps';
import { AppError, fieldsFromZod, toAppError, toJsonRpcError } from '../errors';
import { AGENT_TOOLS } from './tools';

const INSTRUCTIONS =
  'Beckon reaches the people of your organization. Use service.notify to tell them something and ' +
  'service.ask to ask a question with a form; follow answers with service.list (status=answered) ' +
  'or the event stream GET /mcp/sse. Item ids are UUIDs returned by these tools.';

/**
 * A zod schema as the JSON Schema MCP clients (and the models behind them) read: an object at the
 * top, so a named contract (`ZItem`, hoisted by zod into `$defs`) is put back in place.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output') {
  const {
    $schema: _,
    $ref,
    $defs,
    ...json
  } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as {
    $ref?: string;
    $defs?: Record<string, Record<string, unknown>>;
  } & Record<string, unknown>;
  const named = $ref?.startsWith('#/$defs/') ? $defs?.[$ref.slice('#/$defs/'.length)] : undefined;
  const top = named ? { ...named, ...json } : json;
  return { ...top, ...($defs ? { $defs } : {}) } as { type: 'object'; properties?: Record<string, unknown> };
}

/** Tools as clients of 2025-03-26 know them, then with titles and output schemas (2025-06-18 on). */
const TYPED_TOOLS = AGENT_TOOLS.map((tool) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: jsonSchema(tool.input, 'input'),
  outputSchema: jsonSchema(tool.output, 'output'),
  annotations: { title: tool.title, ...tool.annotations },
}));
const BASIC_TOOLS = TYPED_TOOLS.map(({ title: _title, outputSchema: _output, ...basic }) => basic);
const TOOLS = new Map(AGENT_TOOLS.map((tool) => [tool.name, tool]));

/** A JSON-RPC error carrying the REST body as `data` (and the quota's -32002). */
function rpcError(error: AppError) {
  const { code, message, data } = toJsonRpcError(error);
  return Object.assign(new Error(message), { code, data });
}

/** A link to the dashboard page of each item a result holds (an item, or a list's items). */
function itemLinks(deps: Deps, result: unknown) {
  const record = result as { id?: unknown; title?: unknown; status?: unknown; items?: unknown[] };
  const items = Array.isArray(record.items)
    ? record.items
    : typeof record.status === 'string'
      ? [record]
      : [];
  return (items as Array<{ id: string; title: string }>).map((item) => ({
    type: 'resource_link' as const,
    uri: `${deps.env.APP_URL}/items/${item.id}`,
    name: item.title,
    mimeType: 'text/html',
    description: 'The item in the dashboard',
  }));
}

/** Protocol revisions that know `structuredContent`, output schemas and resource links. */
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
  const typed = structured(protocolVersion);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: typed ? TYPED_TOOLS : BASIC_TOOLS,
  }));
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
    const text = { type: 'text' as const, text: JSON.stringify(result) };
    if (!typed) return { content: [text] };
    return {
      content: [text, ...itemLinks(deps, result)],
      structuredContent: result as Record<string, unknown>,
    };
  });
  return server;
}
