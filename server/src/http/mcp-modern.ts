// Longer than 300 lines: the stateless revision end to end (header checks, dispatch, the listen stream of items and tasks).
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Identity } from '../auth/identity';
import type { Deps } from '../deps';
import { appsDeclared } from '../mcp/app';
import type { McpEngine } from '../mcp/engine';
import {
  discover,
  HEADER_MISMATCH,
  META,
  MISSING_CLIENT_CAPABILITY,
  MODERN_METHODS,
  SERVER_INFO,
  TASKS_EXTENSION,
} from '../mcp/modern';
import { callerOf, mayRead, type RpcContext, RpcError } from '../mcp/rpc';
import { findTask } from '../mcp/task-store';
import { MODERN_REVISION, type ToolNames } from '../mcp/tool-list';
import type { StreamEvent } from '../realtime/event-hub';
import { streamOpened } from '../tracing/http-spans';
import { inMcpSpan } from '../tracing/mcp-spans';
import { paramHeaderMismatch } from './mcp-param-headers';
import { requestSignal } from './request-signal';

type Body = {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: Record<string, unknown> & { _meta?: Record<string, unknown> };
};

const metaOf = (request: FastifyRequest) => {
  const body = request.body as Body | null;
  const params = body && typeof body === 'object' && !Array.isArray(body) ? body.params : undefined;
  const meta = params && typeof params === 'object' ? params._meta : undefined;
  return meta && typeof meta === 'object' ? meta : undefined;
};

/** A request of the stateless revision: by its header, or by the version its `_meta` names. */
export function isModernRequest(request: FastifyRequest): boolean {
  return (
    request.headers['mcp-protocol-version'] === MODERN_REVISION ||
    metaOf(request)?.[META.protocolVersion] === MODERN_REVISION
  );
}

/** `=?base64?…?=` header values (Mcp-Name, Mcp-Param-*) decoded; plain ones as sent. */
function headerValue(value: string | string[] | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  const encoded = /^=\?base64\?(.*)\?=$/.exec(value);
  return encoded ? Buffer.from(encoded[1] ?? '', 'base64').toString('utf8') : value;
}

/** The header rules of 2026-07-28: each standard header present and equal to the body's value. */
function headerMismatch(request: FastifyRequest, body: Body): string | null {
  const params = body.params ?? {};
  const version = request.headers['mcp-protocol-version'];
  const bodyVersion = params._meta?.[META.protocolVersion];
  if (version !== bodyVersion)
    return `MCP-Protocol-Version header value '${String(version)}' does not match body value '${String(bodyVersion)}'`;
  const method = request.headers['mcp-method'];
  if (method !== body.method)
    return `Mcp-Method header value '${String(method)}' does not match body value '${String(body.method)}'`;
  const named =
    body.method === 'tools/call' || body.method === 'prompts/get'
      ? params.name
      : body.method === 'resources/read'
        ? params.uri
        : String(body.method).startsWith('tasks/')
          ? params.taskId
          : undefined;
  const name = headerValue(request.headers['mcp-name']);
  // Required for calls and reads; for tasks the client sets it for routing (checked when sent).
  const required =
    body.method === 'tools/call' || body.method === 'resources/read' || body.method === 'prompts/get';
  if ((required || name !== undefined) && named !== undefined && name !== String(named))
    return `Mcp-Name header value '${String(name)}' does not match body value '${String(named)}'`;
  return null;
}

const withMeta = (result: Record<string, unknown>) => ({
  resultType: 'complete',
  ...result,
  _meta: { ...(result._meta as object | undefined), [META.serverInfo]: SERVER_INFO },
});

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The request's declarations as rpc.ts reads them. */
function modernContext(
  deps: Deps,
  identity: Identity,
  names: ToolNames,
  meta: Record<string, unknown>,
  signal: () => AbortSignal,
): RpcContext {
  const capabilities = (meta[META.clientCapabilities] ?? {}) as Record<string, unknown>;
  const extensions = (capabilities.extensions ?? {}) as Record<string, unknown>;
  const traceparent = typeof meta.traceparent === 'string' ? meta.traceparent : undefined;
  const tracestate = typeof meta.tracestate === 'string' ? meta.tracestate : undefined;
  return {
    deps,
    identity,
    protocolVersion: MODERN_REVISION,
    get signal() {
      return signal();
    },
    names,
    apps: appsDeclared(capabilities),
    modern: {
      clientCapabilities: capabilities,
      tasks: typeof extensions === 'object' && extensions !== null && TASKS_EXTENSION in extensions,
      ...(traceparent && TRACEPARENT.test(traceparent)
        ? { trace: { traceparent, ...(tracestate ? { tracestate } : {}) } }
        : {}),
    },
  };
}

/**
 * POST /mcp at 2026-07-28: one request per POST, no handshake, no session; any process answers
 * it. The headers are checked against the body, then the method runs with the request's declared
 * capabilities; results carry `resultType` and the server's identity in `_meta`.
 */
export async function answerModern(
  engine: McpEngine['modern'],
  deps: Deps,
  identity: Identity,
  names: ToolNames,
  supportedVersions: readonly string[],
  request: FastifyRequest,
  reply: FastifyReply,
  shutdown: AbortSignal,
) {
  const body = request.body as Body | null;
  const fail = (status: number, id: unknown, code: number, message: string, data?: unknown) =>
    reply
      .code(status)
      .send({ jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } });
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return fail(400, null, -32600, 'Invalid Request: one JSON-RPC request per POST');
  const known = typeof body.id === 'string' || typeof body.id === 'number';
  if (body.jsonrpc !== '2.0' || typeof body.method !== 'string')
    return fail(400, known ? body.id : null, -32600, 'Invalid Request: not a JSON-RPC 2.0 request');
  // No client notification is defined over HTTP at this revision: accepted and ignored.
  if (body.id === undefined) return reply.code(202).send();
  if (!known) return fail(400, null, -32600, 'Invalid Request: id must be a string or a number');
  if (body.params !== undefined && (typeof body.params !== 'object' || Array.isArray(body.params)))
    return fail(400, body.id, -32602, 'Invalid params: params must be an object');
  const declared = body.params?._meta;
  if (
    !declared ||
    typeof declared !== 'object' ||
    typeof declared[META.protocolVersion] !== 'string' ||
    typeof declared[META.clientCapabilities] !== 'object' ||
    declared[META.clientCapabilities] === null
  )
    return fail(
      400,
      body.id,
      -32602,
      `Invalid params: _meta must carry ${META.protocolVersion} and ${META.clientCapabilities}`,
    );
  const mismatch = headerMismatch(request, body);
  if (mismatch) return fail(400, body.id, HEADER_MISMATCH, `Header mismatch: ${mismatch}`);

  const meta = body.params?._meta ?? {};
  const ctx = modernContext(deps, identity, names, meta, requestSignal(reply, shutdown));
  if (ctx.modern?.trace)
    request.log.info({ mcp: { method: body.method, ...ctx.modern.trace } }, 'mcp request');

  if (body.method === 'subscriptions/listen') return listen(ctx, body, reply, shutdown);
  const params = { ...(body.params ?? {}) };
  if (body.method === 'tools/call') {
    const wrong = await paramHeaderMismatch(engine.methods['tools/list'], ctx, request, params);
    if (wrong) return fail(400, body.id, HEADER_MISMATCH, `Header mismatch: ${wrong}`);
  }
  try {
    if (body.method === 'server/discover')
      return reply.send({
        jsonrpc: '2.0',
        id: body.id,
        result: withMeta(discover(supportedVersions, engine.capabilities, engine.instructions(names))),
      });
    const method = engine.methods[body.method];
    if (!method) return fail(404, body.id, -32601, `Method not found: ${body.method}`);
    const token = meta.progressToken;
    const name = body.method;
    const call = () => inMcpSpan(name, ctx.modern?.trace, () => method(ctx, params));
    if ((typeof token === 'string' || typeof token === 'number') && acceptsStream(request))
      return await streamProgress(ctx, body.id as string | number, token, call, reply);
    const result = (await call()) as Record<string, unknown>;
    return reply.send({ jsonrpc: '2.0', id: body.id, result: withMeta(result) });
  } catch (thrown) {
    const { code, message, data } = RpcError.from(thrown);
    // A capability the client did not declare is refused with 400 (the specification's rule).
    return fail(code === MISSING_CLIENT_CAPABILITY ? 400 : 200, body.id, code, message, data);
  }
}

const sse = (res: ServerResponse, message: unknown) =>
  res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);

const acceptsStream = (request: FastifyRequest) =>
  String(request.headers.accept ?? '').includes('text/event-stream');

/**
 * A request that carries `_meta.progressToken`, from a client that accepts an event stream: the
 * answer is a stream of `notifications/progress` for that token while the method runs, then its
 * response (a wait of `service.get`, for example, reports the seconds waited).
 */
async function streamProgress(
  ctx: RpcContext,
  id: string | number,
  token: string | number,
  run: () => Promise<unknown>,
  reply: FastifyReply,
) {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
  });
  ctx.progress = async (progress, total, message) => {
    if (!res.destroyed)
      sse(res, {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: token, progress, total, message },
      });
  };
  try {
    const result = (await run()) as Record<string, unknown>;
    sse(res, { jsonrpc: '2.0', id, result: withMeta(result) });
  } catch (thrown) {
    const { code, message, data } = RpcError.from(thrown);
    sse(res, { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } });
  }
  res.end();
}

/**
 * subscriptions/listen: an event stream of `notifications/resources/updated` for the items the
 * client subscribed to, by their links (`<APP_URL>/items/<id>`), or `<APP_URL>/items` for every
 * item the credential follows (an agent key: the items its agent created; a person: all). The
 * acknowledgement names what was accepted; the stream ends with a result when the server stops.
 */
async function listen(ctx: RpcContext, body: Body, reply: FastifyReply, shutdown: AbortSignal) {
  const { deps, identity } = ctx;
  const id = body.id as string | number;
  try {
    mayRead(ctx);
  } catch (thrown) {
    const { code, message, data } = RpcError.from(thrown);
    return reply.send({ jsonrpc: '2.0', id, error: { code, message, data } });
  }
  const hub = deps.events;
  if (!hub)
    return reply
      .code(503)
      .send({ jsonrpc: '2.0', id, error: { code: -32603, message: 'event stream unavailable' } });
  const filter = (body.params?.notifications ?? {}) as { resourceSubscriptions?: unknown; taskIds?: unknown };
  const taskIds = Array.isArray(filter.taskIds)
    ? filter.taskIds.filter((taskId): taskId is string => typeof taskId === 'string')
    : [];
  if (taskIds.length > 0 && !ctx.modern?.tasks)
    return reply.code(400).send({
      jsonrpc: '2.0',
      id,
      error: {
        code: MISSING_CLIENT_CAPABILITY,
        message: 'Missing required client capability',
        data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      },
    });
  // The caller's own tasks only (another's is left out of the acknowledgement), by their item.
  const tasks = new Map<string, string>();
  for (const taskId of taskIds) {
    const row = await findTask(deps, identity, taskId);
    if (row) tasks.set(row.item_id, row.id);
  }
  const requested = Array.isArray(filter.resourceSubscriptions)
    ? filter.resourceSubscriptions.filter((uri): uri is string => typeof uri === 'string')
    : [];
  const all = `${deps.env.APP_URL}/items`;
  const followsAll = requested.includes(all);
  const items = new Map<string, string>();
  for (const uri of requested) {
    const itemId = uri.startsWith(`${all}/`) ? uri.slice(all.length + 1) : undefined;
    if (!itemId || !/^[0-9a-f-]{36}$/i.test(itemId)) continue;
    // Only items the credential may read (another organization's is left out of the acknowledgement).
    const readable = await callerOf(ctx)
      .items.get({ id: itemId })
      .then(
        () => true,
        () => false,
      );
    if (readable) items.set(itemId, uri);
  }
  const accepted = [...(followsAll ? [all] : []), ...items.values()];
  const subscription = { [META.subscriptionId]: id };

  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
  });
  streamOpened(reply.request);
  sse(res, {
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: {
      _meta: subscription,
      notifications: {
        resourceSubscriptions: accepted,
        ...(taskIds.length > 0 ? { taskIds: [...tasks.values()] } : {}),
      },
    },
  });
  /** `notifications/tasks`: the task as tasks/get shows it now (its result once completed). */
  const taskChanged = async (taskId: string) => {
    const { resultType: _complete, ...task } = ((await MODERN_METHODS['tasks/get']?.(ctx, {
      taskId,
    })) ?? {}) as Record<string, unknown>;
    if (!closed)
      sse(res, { jsonrpc: '2.0', method: 'notifications/tasks', params: { ...task, _meta: subscription } });
  };
  const ownOnly = identity.agentId !== null && identity.agentId !== undefined;
  const deliver = (event: StreamEvent) => {
    if (!event.item_id) return;
    const taskId = tasks.get(event.item_id);
    if (taskId) void taskChanged(taskId).catch(() => {});
    const own = !ownOnly || event.agent_id === identity.agentId;
    const uri = items.get(event.item_id) ?? (followsAll && own ? `${all}/${event.item_id}` : undefined);
    if (!uri) return;
    sse(res, {
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: {
        uri,
        _meta: {
          ...subscription,
          'io.beckon/event': { id: event.id, type: event.type, created_at: event.created_at.toISOString() },
        },
      },
    });
  };
  const unsubscribe = hub.subscribe(identity.orgId, { event: deliver, lost: () => close() });
  const heartbeat = setInterval(() => res.write(':\n\n'), deps.env.STREAM_HEARTBEAT_MS);
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    unsubscribe();
    shutdown.removeEventListener('abort', stop);
    res.end();
  };
  const stop = () => {
    sse(res, { jsonrpc: '2.0', id, result: withMeta({ _meta: subscription }) });
    close();
  };
  shutdown.addEventListener('abort', stop);
  res.on('close', close);
  if (res.destroyed) close();
}
