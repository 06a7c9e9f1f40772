import { AppError, fieldsFromZod, toAppError } from '../errors';
import { APPS_EXTENSION } from './app';
import { askInChat, continueAsk } from './ask-requester';
import {
  callerOf,
  type Item,
  invalidArguments,
  invalidParams,
  type Method,
  mayRead,
  ownTask,
  type RpcContext,
  RpcError,
  refusedArguments,
  stillOpen,
  toolResult,
  waitReporting,
} from './rpc';
import { createTask, type McpTask, type TaskRow, taskOf } from './task-store';
import { MODERN_REVISION, TOOLS, type ToolNames, toolList, underscored } from './tool-list';

/** The `_meta` keys of 2026-07-28 requests and results. */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
export const SERVER_INFO = { name: 'beckon', version: '0.1.0' };

/** Error codes of 2026-07-28 (the range the specification reserves). */
export const HEADER_MISMATCH = -32020;
export const MISSING_CLIENT_CAPABILITY = -32021;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** How long a client may keep `tools/list` and `server/discover` (they change with a release). */
const LIST_TTL_MS = 3_600_000;

const INSTRUCTIONS =
  'Beckon reaches the people of your organization. Use service.notify to tell them something and ' +
  'service.ask to ask a question with a form. People answer in minutes or hours: a client that ' +
  'declares the tasks extension gets a task for a question still open (poll tasks/get; its result ' +
  'is the answered item); others pass wait_seconds (at most 50) and call service.get with ' +
  'wait_seconds until the item is no longer open. subscriptions/listen with resourceSubscriptions ' +
  '[<the item link of a result>] or [<APP_URL>/items] reports changes. Item ids are UUIDs returned by these tools.';

export const MODERN_CAPABILITIES = {
  tools: { listChanged: false },
  resources: { subscribe: true, listChanged: false },
  prompts: { listChanged: false },
  extensions: { [TASKS_EXTENSION]: {}, [APPS_EXTENSION]: {} },
};

/** A task as the tasks extension shows it (durations in milliseconds, named so). */
function modernTask(task: McpTask) {
  const { ttl, pollInterval, ...rest } = task;
  return { ...rest, ttlMs: ttl, pollIntervalMs: pollInterval };
}

/**
 * tools/call at 2026-07-28. Refused arguments are a result the model reads (isError). A question
 * still open becomes a task for a client that declared the tasks extension (after waiting
 * `wait_seconds` if asked); other clients get the open item, as at earlier revisions.
 */
async function callTool(ctx: RpcContext, params: Record<string, unknown>) {
  const tool = TOOLS.get(String(params.name));
  if (!tool) throw invalidParams(`unknown tool: ${String(params.name)}`);
  const args = (params.arguments ?? {}) as Record<string, unknown>;
  const parsed = tool.input.safeParse(args);
  if (!parsed.success) return invalidArguments(AppError.invalid(fieldsFromZod(parsed.error.issues)));
  const key = tool.creates ? (args.idempotency_key as string | undefined) : undefined;
  const caller = callerOf(ctx, key ?? null);
  /** An open item: a task for a client of the tasks extension, else the item with a note. */
  const settle = async (item: Item, note?: string) => {
    if (ctx.modern?.tasks) {
      const task = await createTask(ctx.deps, ctx.identity, item.id, tool.name, undefined);
      return { ...modernTask(task), resultType: 'task' };
    }
    return toolResult(ctx, item, note);
  };
  try {
    // The retry of a question asked in the chat: the item exists already.
    if (tool.name === 'service.ask' && params.requestState !== undefined)
      return await continueAsk(ctx, params, settle);
    const result = await tool.call(caller, args as never);
    if (!tool.waits) return toolResult(ctx, result);
    const item = result as Item;
    if (item.status !== 'open') return toolResult(ctx, result);
    if (args.ask_requester === true) {
      const asked = await askInChat(ctx, item);
      if (asked) return asked;
    }
    const wait = (args.wait_seconds as number | undefined) ?? 0;
    if (wait > 0 && (await waitReporting(ctx, item.id, wait * 1000)))
      return toolResult(ctx, await caller.items.get({ id: item.id }));
    if (tool.creates || wait > 0) return await settle(item, wait > 0 ? stillOpen(ctx, item.id) : undefined);
    return toolResult(ctx, result);
  } catch (error) {
    if (error instanceof RpcError) throw error;
    const appError = toAppError(error);
    if (refusedArguments(appError)) return invalidArguments(appError);
    throw RpcError.from(appError);
  }
}

/** The tasks methods answer only clients that declared the extension. */
export function tasksDeclared(ctx: RpcContext) {
  if (!ctx.modern?.tasks)
    throw new RpcError(MISSING_CLIENT_CAPABILITY, 'Missing required client capability', {
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    });
}

async function findOwnTask(ctx: RpcContext, params: Record<string, unknown>): Promise<TaskRow> {
  tasksDeclared(ctx);
  return ownTask(ctx, params);
}

/** tasks/get: the task, and once its item has an outcome the result a plain call returns. */
async function getTask(ctx: RpcContext, params: Record<string, unknown>) {
  const row = await findOwnTask(ctx, params);
  const task = modernTask(taskOf(row));
  if (task.status !== 'completed') return task;
  try {
    const item = await callerOf(ctx).items.get({ id: row.item_id });
    return { ...task, result: { ...toolResult(ctx, item), resultType: 'complete' } };
  } catch (error) {
    throw RpcError.from(error);
  }
}

/** tasks/cancel: withdraws the question while it is open; acknowledged either way. */
async function cancelTask(ctx: RpcContext, params: Record<string, unknown>) {
  const row = await findOwnTask(ctx, params);
  if (taskOf(row).status !== 'working') return {};
  try {
    await callerOf(ctx).items.withdraw({ id: row.item_id });
  } catch (error) {
    const appError = toAppError(error);
    // Answered (or withdrawn) meanwhile: cancellation is cooperative, the outcome stands.
    if (appError.status !== 409) throw RpcError.from(appError);
  }
  return {};
}

/** The link of an item, which is also its resource URI (resources/read, subscriptions/listen). */
export const itemUri = (ctx: RpcContext, id: string) => `${ctx.deps.env.APP_URL}/items/${id}`;
const ITEM_URI = /\/items\/([0-9a-f-]{36})$/i;

async function readResource(ctx: RpcContext, params: Record<string, unknown>) {
  const uri = String(params.uri ?? '');
  const id = uri.startsWith(`${ctx.deps.env.APP_URL}/items/`) ? ITEM_URI.exec(uri)?.[1] : undefined;
  const notFound = () => new RpcError(-32602, `resource not found: ${uri}`, { uri });
  if (!id) throw notFound();
  mayRead(ctx);
  try {
    const item = await callerOf(ctx).items.get({ id });
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(item) }] };
  } catch (error) {
    const appError = toAppError(error);
    if (appError.status === 404) throw notFound();
    throw RpcError.from(appError);
  }
}

const cacheable = <T>(result: T, scope: 'public' | 'private' = 'private') => ({
  ...result,
  ttlMs: LIST_TTL_MS,
  cacheScope: scope,
});

/** The instructions of `server/discover`, with the tool names spelled as this client's list spells them. */
export const discoveryInstructions = (names: ToolNames) =>
  names === 'underscore' ? underscored(INSTRUCTIONS) : INSTRUCTIONS;

/** What `server/discover` answers: the revisions served at /mcp, capabilities, instructions. */
export function discover(
  supportedVersions: readonly string[],
  capabilities: Record<string, unknown>,
  instructions: string | undefined,
) {
  return cacheable({ supportedVersions, capabilities, ...(instructions ? { instructions } : {}) }, 'public');
}

/** The methods of a 2026-07-28 request (server/discover and subscriptions/listen: http/mcp-modern.ts). */
export const MODERN_METHODS: Record<string, Method> = {
  'tools/list': async (ctx) => cacheable(toolList(MODERN_REVISION, ctx.names)),
  'tools/call': callTool,
  'resources/list': async () => cacheable({ resources: [] }),
  // No prompts (declared, so clients that list them get an empty, cacheable list).
  'prompts/list': async () => cacheable({ prompts: [] }),
  'resources/templates/list': async (ctx) =>
    cacheable({
      resourceTemplates: [
        {
          uriTemplate: `${ctx.deps.env.APP_URL}/items/{id}`,
          name: 'item',
          title: 'An item',
          description: 'An item of the organization as JSON (its status, and response once answered)',
          mimeType: 'application/json',
        },
      ],
    }),
  'resources/read': readResource,
  'tasks/get': getTask,
  'tasks/update': async (ctx, params) => {
    // No Beckon task asks its client for input: responses are acknowledged and ignored.
    await findOwnTask(ctx, params);
    return {};
  },
  'tasks/cancel': cancelTask,
};
