import { ZItemId } from '@beckon/contracts/items/item.contract';
import { EXTENSION_ID, getUiCapability, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { z } from 'zod';
import { AppError, fieldsFromZod, toAppError } from '../errors';
import { answerAsRequester } from './answer';
import { appPage } from './app-page';
import { callerOf, invalidArguments, type Method, type RpcContext, RpcError, toolResult } from './rpc';
import { TOOLS, underscored } from './tool-list';

/**
 * The MCP App (extension `io.modelcontextprotocol/ui`): `service.ask` and `service.get` name the
 * `ui://` page that shows the item and its form in a host that renders Apps; the page answers
 * through `service.answer`, a tool only the page calls. Offered only to a client that declared the
 * extension with the `text/html;profile=mcp-app` type (docs/api.md, "The answering App").
 */
export const APPS_EXTENSION = EXTENSION_ID;
export const APP_URI = 'ui://beckon/answer';
export const ANSWER_TOOL = 'service.answer';

/** Whether client capabilities (of `initialize`, or a 2026-07-28 request's `_meta`) declare Apps. */
export function appsDeclared(capabilities: unknown): boolean {
  if (!capabilities || typeof capabilities !== 'object') return false;
  const declared = getUiCapability(capabilities as Parameters<typeof getUiCapability>[0]);
  return Array.isArray(declared?.mimeTypes) && declared.mimeTypes.includes(RESOURCE_MIME_TYPE);
}

/** What `_meta` tells an Apps host about a tool: the page that renders its result, and who calls it. */
export const appToolMeta = (visibility?: Array<'model' | 'app'>) => ({
  ui: { resourceUri: APP_URI, ...(visibility ? { visibility } : {}) },
});

/** The tools whose result (an item) the page renders. */
export const APP_TOOLS = new Set(['service.ask', 'service.get']);

export const APP_RESOURCE = {
  uri: APP_URI,
  name: 'answer',
  title: 'Answer a question',
  description: 'Shows an item and its form, and records the answer (MCP App)',
  mimeType: RESOURCE_MIME_TYPE,
};

/** resources/read of the page: the answer tool named as this client's tool list names it. */
export async function readApp(ctx: RpcContext) {
  const answerTool = ctx.names === 'underscore' ? underscored(ANSWER_TOOL) : ANSWER_TOOL;
  return {
    contents: [
      {
        uri: APP_URI,
        mimeType: RESOURCE_MIME_TYPE,
        text: await appPage({ answerTool, appUrl: ctx.deps.env.APP_URL }),
        _meta: { ui: { prefersBorder: true } },
      },
    ],
  };
}

const ZAnswerArgs = z.strictObject({
  id: ZItemId.shape.id.describe('Item id (UUID)'),
  values: z.record(z.string(), z.unknown()).describe("The form's values, by field id"),
});

/** The answer tool as tools/list shows it: for the page only (`visibility: ["app"]`). */
export const answerToolDefinition = () => {
  const { $schema: _, ...inputSchema } = z.toJSONSchema(ZAnswerArgs, { io: 'input' });
  return {
    name: ANSWER_TOOL,
    title: 'Answer a question',
    description:
      'Records the person\'s answer to an open item from Beckon\'s MCP App (the person behind this credential answers, answered_via "mcp"). Returns the item.',
    inputSchema: inputSchema as { type: 'object' },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    _meta: appToolMeta(['app']),
  };
};

/**
 * tools/call of the answer tool: the values go through the same answer operation as every other
 * channel; refused values and answers that do not count come back as a result with `isError`, so
 * the page shows why.
 */
export async function callAnswer(ctx: RpcContext, args: Record<string, unknown>) {
  const parsed = ZAnswerArgs.safeParse(args);
  if (!parsed.success) return invalidArguments(AppError.invalid(fieldsFromZod(parsed.error.issues)));
  try {
    await answerAsRequester(ctx, parsed.data.id, parsed.data.values);
    return toolResult(ctx, await callerOf(ctx).items.get({ id: parsed.data.id }));
  } catch (error) {
    const appError = toAppError(error);
    if (appError.status === 400 || appError.status === 422) return invalidArguments(appError);
    if (appError.status === 403 || appError.status === 404 || appError.status === 409)
      return {
        content: [{ type: 'text', text: `The answer was not recorded: ${appError.body.error}` }],
        isError: true,
      };
    throw RpcError.from(appError);
  }
}

type Tool = { name: string; _meta?: Record<string, unknown> };
const notFound = (method: string) => new RpcError(-32601, `Method not found: ${method}`);

/**
 * A method table (rpc.ts's, or modern.ts's) with the App for clients that declared Apps: the
 * page's URI on the tools that return an item, the answer tool, and the page as a resource.
 * Clients that did not declare it get the table's answers unchanged.
 */
export function withApp(methods: Record<string, Method>): Record<string, Method> {
  const base = (method: string): Method =>
    methods[method] ??
    (async () => {
      throw notFound(method);
    });
  return {
    ...methods,
    'tools/list': async (ctx, params) => {
      const list = (await base('tools/list')(ctx, params)) as { tools: Tool[] };
      if (!ctx.apps) return list;
      const answer = answerToolDefinition();
      const spelled = ctx.names === 'underscore' ? { ...answer, name: underscored(answer.name) } : answer;
      const tools = list.tools.map((tool) =>
        APP_TOOLS.has(TOOLS.get(tool.name)?.name ?? '')
          ? { ...tool, _meta: { ...tool._meta, ...appToolMeta() } }
          : tool,
      );
      return { ...list, tools: [...tools, spelled] };
    },
    'tools/call': (ctx, params) =>
      ctx.apps && TOOLS_ANSWER.has(String(params.name))
        ? callAnswer(ctx, (params.arguments ?? {}) as Record<string, unknown>)
        : base('tools/call')(ctx, params),
    'resources/list': async (ctx, params) => {
      if (!methods['resources/list'] && !ctx.apps) throw notFound('resources/list');
      const list = methods['resources/list']
        ? ((await methods['resources/list'](ctx, params)) as { resources: unknown[] })
        : { resources: [] };
      return ctx.apps ? { ...list, resources: [...list.resources, APP_RESOURCE] } : list;
    },
    'resources/read': async (ctx, params) => {
      if (ctx.apps && params.uri === APP_URI) return readApp(ctx);
      if (methods['resources/read']) return methods['resources/read'](ctx, params);
      if (!ctx.apps) throw notFound('resources/read');
      throw new RpcError(-32602, `resource not found: ${String(params.uri)}`, { uri: params.uri });
    },
  };
}
const TOOLS_ANSWER = new Set([ANSWER_TOOL, underscored(ANSWER_TOOL)]);
