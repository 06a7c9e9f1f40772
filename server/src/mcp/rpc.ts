import { can } from '@beckon/contracts/permissions';
import { directCaller } from '../app-router';
import type { Identity } from '../auth/identity';
import type { Deps } from '../deps';
import { AppError, fieldsFromZod, toAppError, toJsonRpcError } from '../errors';
import { PROGRESS_EVERY_MS, waitForOutcome } from './item-wait';
import { createTask, findTask, listTasks, type TaskRow, taskOf } from './task-store';
import { structured, TOOLS, type ToolNames, toolList, underscored } from './tool-list';

/** One JSON-RPC request of an agent: who, at which protocol revision, and how to report progress. */
export type RpcContext = {
  deps: Deps;
  identity: Identity;
  protocolVersion: string | undefined;
  /** Aborted when the client goes away. */
  signal?: AbortSignal;
  /** Set when the client sent `_meta.progressToken` and can receive notifications. */
  progress?: (progress: number, total: number, message: string) => Promise<void>;
  /** How tool names are spelled for this client (tool-list.ts). */
  names?: ToolNames;
  /** Whether the client declared the Apps extension (app.ts): at initialize, or in a 2026-07-28 `_meta`. */
  apps?: boolean;
  /** At 2026-07-28: what the request's `_meta` declared (modern.ts). */
  modern?: ModernRequest;
  /**
   * At 2025-03-26 … 2025-11-25, for a request answered as an event stream (the engine's
   * `converses`): asks the client (sampling, elicitation, roots; refused when its `initialize`
   * did not declare the capability) and resolves with its answer (conversation.ts).
   */
  ask?: (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>;
  /** Likewise: a `notifications/message`, sent when the session's logging level lets it through. */
  log?: (level: string, data: unknown, logger?: string) => Promise<void>;
  /** logging/setLevel: keeps the level for the session (absent when the client has none). */
  setLogLevel?: (level: string) => void;
};

/** A 2026-07-28 request's declarations: the client's capabilities, and trace context. */
export type ModernRequest = {
  clientCapabilities: Record<string, unknown>;
  /** Whether the client declared the tasks extension (io.modelcontextprotocol/tasks). */
  tasks: boolean;
  /** W3C trace context from `_meta` (traceparent, tracestate), passed to the item's callback. */
  trace?: { traceparent: string; tracestate?: string };
};

/** A JSON-RPC error: code, message and data (REST's body for procedure errors). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
  static from(error: unknown): RpcError {
    if (error instanceof RpcError) return error;
    const { code, message, data } = toJsonRpcError(toAppError(error));
    return new RpcError(code, message, data);
  }
}
export const invalidParams = (message: string) => new RpcError(-32602, message);

const RELATED_TASK = 'io.modelcontextprotocol/related-task';
export type Item = { id: string; title: string; status: string };

export const callerOf = (ctx: RpcContext, idempotencyKey: string | null = null) =>
  directCaller({
    deps: ctx.deps,
    token: null,
    identity: ctx.identity,
    idempotencyKey,
    responseHeaders: {},
    ...(ctx.modern?.trace ? { trace: ctx.modern.trace } : {}),
  });

/** A link to the dashboard page of each item a result holds (an item, or a list's items). */
function itemLinks(deps: Deps, result: unknown) {
  const record = result as { status?: unknown; items?: unknown[] };
  const items = Array.isArray(record.items)
    ? record.items
    : typeof record.status === 'string'
      ? [record]
      : [];
  return (items as Item[]).map((item) => ({
    type: 'resource_link' as const,
    uri: `${deps.env.APP_URL}/items/${item.id}`,
    name: item.title,
    mimeType: 'text/html',
    description: 'The item in the dashboard',
  }));
}

/** A tool's result: the JSON text first, then (2025-06-18 on) links and `structuredContent`. */
export function toolResult(ctx: RpcContext, result: unknown, note?: string) {
  const content: Array<Record<string, unknown>> = [{ type: 'text', text: JSON.stringify(result) }];
  if (note) content.push({ type: 'text', text: note });
  if (!structured(ctx.protocolVersion)) return { content };
  return {
    content: [...content, ...itemLinks(ctx.deps, result)],
    structuredContent: result as Record<string, unknown>,
  };
}

export const stillOpen = (ctx: RpcContext, id: string) => {
  const text = `No outcome yet: the item is still open. Call service.get with {"id": "${id}", "wait_seconds": 50} to wait again.`;
  return ctx.names === 'underscore' ? underscored(text) : text;
};

/**
 * Arguments a tool refuses (its schema, or the procedure's field checks) are a tool result the
 * model reads and fixes, at every revision, as the specification recommends: `isError` and the
 * field messages as text. No `structuredContent`: the tool's output schema describes its success
 * (the SDK's client checks any `structuredContent` against it, even of an error).
 */
export function invalidArguments(error: AppError) {
  const fields = (error.body as { fields?: Record<string, string> }).fields ?? {};
  const lines = Object.entries(fields).map(([field, message]) => `- ${field}: ${message}`);
  return { content: [{ type: 'text', text: ['Invalid arguments:', ...lines].join('\n') }], isError: true };
}
export const refusedArguments = (error: AppError) => error.status === 400 && 'fields' in error.body;

/** Waits up to `ms` for the item's outcome, reporting progress every few seconds if asked to. */
export async function waitReporting(ctx: RpcContext, itemId: string, ms: number): Promise<boolean> {
  const total = ms / 1000;
  const started = Date.now();
  const report = () =>
    ctx.progress?.(Math.min(total, Math.round((Date.now() - started) / 1000)), total, 'waiting for a person');
  const timer = ctx.progress
    ? setInterval(() => void report()?.catch(() => {}), PROGRESS_EVERY_MS)
    : undefined;
  try {
    await report();
    return await waitForOutcome(ctx.deps, ctx.identity.orgId, itemId, ms, ctx.signal);
  } finally {
    clearInterval(timer);
  }
}

async function callTool(ctx: RpcContext, params: Record<string, unknown>) {
  const tool = TOOLS.get(String(params.name));
  if (!tool) throw invalidParams(`unknown tool: ${String(params.name)}`);
  const args = (params.arguments ?? {}) as Record<string, unknown>;
  const parsed = tool.input.safeParse(args);
  if (!parsed.success) return invalidArguments(AppError.invalid(fieldsFromZod(parsed.error.issues)));
  const task = params.task as { ttl?: unknown } | undefined;
  if (task && !tool.waits) throw new RpcError(-32601, `${tool.name} does not run as a task`);
  const key = tool.creates ? (args.idempotency_key as string | undefined) : undefined;
  const caller = callerOf(ctx, key ?? null);
  try {
    let result = await tool.call(caller, args as never);
    if (!tool.waits) return toolResult(ctx, result);
    const item = result as Item;
    if (task) {
      const ttl = typeof task.ttl === 'number' && Number.isFinite(task.ttl) ? task.ttl : undefined;
      return { task: await createTask(ctx.deps, ctx.identity, item.id, tool.name, ttl) };
    }
    const wait = (args.wait_seconds as number | undefined) ?? 0;
    if (wait === 0 || item.status !== 'open') return toolResult(ctx, result);
    if (!(await waitReporting(ctx, item.id, wait * 1000)))
      return toolResult(ctx, result, stillOpen(ctx, item.id));
    result = await caller.items.get({ id: item.id });
    return toolResult(ctx, result);
  } catch (error) {
    const appError = toAppError(error);
    if (refusedArguments(appError)) return invalidArguments(appError);
    throw RpcError.from(appError);
  }
}

/** Tasks show items: reading them takes `items.read`, as reading the items does. */
export function mayRead(ctx: RpcContext) {
  if (!can(ctx.identity.permissions, 'items.read'))
    throw RpcError.from(AppError.permissionDenied('items.read'));
}

export async function ownTask(ctx: RpcContext, params: Record<string, unknown>): Promise<TaskRow> {
  mayRead(ctx);
  const row = await findTask(ctx.deps, ctx.identity, String(params.taskId ?? ''));
  if (!row) throw invalidParams(`task not found: ${String(params.taskId)}`);
  return row;
}

/** The task's CallToolResult, once its item has an outcome (waiting for it, as long as it takes). */
async function taskResult(ctx: RpcContext, params: Record<string, unknown>) {
  let row = await ownTask(ctx, params);
  while (taskOf(row).status === 'working') {
    await waitForOutcome(ctx.deps, ctx.identity.orgId, row.item_id, 3600_000, ctx.signal);
    if (ctx.signal?.aborted) throw new RpcError(-32000, 'interrupted: call tasks/result again');
    row = await ownTask(ctx, params);
  }
  try {
    const item = await callerOf(ctx).items.get({ id: row.item_id });
    return { ...toolResult(ctx, item), _meta: { [RELATED_TASK]: { taskId: row.id } } };
  } catch (error) {
    throw RpcError.from(error);
  }
}

/** tasks/cancel: withdraws the question (the items.withdraw procedure); the task is then cancelled. */
async function cancelTask(ctx: RpcContext, params: Record<string, unknown>) {
  const row = await ownTask(ctx, params);
  const terminal = () => invalidParams(`Cannot cancel task in terminal status: ${taskOf(row).status}`);
  if (taskOf(row).status !== 'working') throw terminal();
  try {
    await callerOf(ctx).items.withdraw({ id: row.item_id });
  } catch (error) {
    const appError = toAppError(error);
    if (appError.status === 409) throw terminal();
    throw RpcError.from(appError);
  }
  return taskOf(await ownTask(ctx, params));
}

export type Method = (ctx: RpcContext, params: Record<string, unknown>) => Promise<unknown>;

/** The agent methods of POST /mcp (besides initialize and notifications, which the SDK answers). */
export const METHODS: Record<string, Method> = {
  ping: async () => ({}),
  'tools/list': async (ctx) => toolList(ctx.protocolVersion, ctx.names),
  'tools/call': callTool,
  'tasks/get': async (ctx, params) => taskOf(await ownTask(ctx, params)),
  'tasks/result': taskResult,
  'tasks/cancel': cancelTask,
  'tasks/list': async (ctx, params) => {
    mayRead(ctx);
    const page = await listTasks(ctx.deps, ctx.identity, params.cursor as string | undefined);
    if (!page) throw invalidParams('invalid cursor');
    return page;
  },
};
