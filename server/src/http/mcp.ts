import { listenOnDedicatedConnection } from '@beckon/db';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Identity } from '../auth/identity';
import type { Deps } from '../deps';
import { agentServer } from '../mcp/agent-server';
import { Conversations, ownerOf, passedOn, REPLIES_CHANNEL, relayed, repliesOf } from '../mcp/conversation';
import { AGENT_ENGINE, type McpEngine } from '../mcp/engine';
import { declaredAtInitialize, issueSession, type LegacySession, sessionOf } from '../mcp/legacy-session';
import { UNSUPPORTED_PROTOCOL_VERSION } from '../mcp/modern';
import { type Method, type RpcContext, RpcError } from '../mcp/rpc';
import { MODERN_REVISION, type ToolNames } from '../mcp/tool-list';
import { rejectLimitedMcp } from './api-rate-limit';
import { authenticate } from './authenticate';
import { answerModern, isModernRequest } from './mcp-modern';
import { requestSignal } from './request-signal';

/** Every revision /mcp answers, newest first. */
export const SERVED_VERSIONS = [MODERN_REVISION, ...SUPPORTED_PROTOCOL_VERSIONS];

/**
 * How tool names are spelled for this request (docs/api.md, "Tool names"): as the client asks
 * (`?tool_names=` on the endpoint URL), else as MCP_TOOL_NAMES says, else by revision: hosts of
 * 2026-07-28 get `service_notify`, earlier revisions the specification's `service.notify`.
 */
function toolNames(deps: Deps, request: FastifyRequest, version: string | undefined): ToolNames {
  const asked = (request.query as { tool_names?: unknown } | undefined)?.tool_names;
  if (asked === 'dotted' || asked === 'underscore') return asked;
  const setting = deps.env.MCP_TOOL_NAMES;
  if (setting !== 'auto') return setting;
  return version === MODERN_REVISION ? 'underscore' : 'dotted';
}

type Message = {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: { _meta?: { progressToken?: unknown } };
};

/**
 * The common case, answered without building an SDK server and transport: one JSON-RPC request
 * for a method of rpc.ts, from a client that accepts JSON, at a revision the SDK supports, that
 * wants no progress notifications. Anything else (initialize, notifications, batches, progress,
 * malformed requests) goes to the SDK, which answers it as the specification says.
 */
function lean(
  methods: Record<string, Method>,
  request: FastifyRequest,
  version: string | undefined,
): Message | null {
  const accept = request.headers.accept ?? '';
  const body = request.body as Message | null;
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return null;
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return null;
  if (!body || typeof body !== 'object' || Array.isArray(body) || body.jsonrpc !== '2.0') return null;
  if (typeof body.method !== 'string' || !Object.hasOwn(methods, body.method)) return null;
  if (typeof body.id !== 'string' && typeof body.id !== 'number') return null;
  const params = body.params as unknown;
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params)))
    return null;
  return body.params?._meta?.progressToken === undefined ? body : null;
}

/**
 * What the SDK's transport would refuse in a request whose id is known, refused here with that
 * id (the transport answers `id: null` to all of these): the Accept header, the JSON-RPC shape,
 * an unknown protocol revision.
 */
function refusal(request: FastifyRequest, version: string | undefined) {
  const body = request.body as Message | null;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  if (typeof body.id !== 'string' && typeof body.id !== 'number') return null;
  const refuse = (status: number, code: number, message: string, data?: unknown) => ({
    status,
    body: { jsonrpc: '2.0', id: body.id, error: { code, message, ...(data === undefined ? {} : { data }) } },
  });
  const accept = request.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
    return refuse(
      406,
      -32000,
      'Not Acceptable: Client must accept both application/json and text/event-stream',
    );
  const params = body.params as unknown;
  if (
    body.jsonrpc !== '2.0' ||
    typeof body.method !== 'string' ||
    (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params)))
  )
    return refuse(400, -32600, 'Invalid Request: not a JSON-RPC 2.0 request');
  if (version !== undefined && body.method !== 'initialize' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version))
    return refuse(
      400,
      UNSUPPORTED_PROTOCOL_VERSION,
      `Unsupported protocol version: ${version} (supported versions: ${SERVED_VERSIONS.join(', ')})`,
      { supported: SERVED_VERSIONS, requested: version },
    );
  return null;
}

/** What an `initialize` declares (legacy-session.ts); null for any other request. */
function initializeDeclares(request: FastifyRequest) {
  const body = request.body as { method?: unknown; params?: { capabilities?: unknown } } | null;
  if (!body || typeof body !== 'object' || Array.isArray(body) || body.method !== 'initialize') return null;
  return declaredAtInitialize(body.params?.capabilities);
}

/** Whether answering `message` may talk to the client (the engine's `converses`): an event stream. */
function converses(engine: McpEngine['legacy'], body: unknown): boolean {
  const message = body as Message | null;
  if (!engine.converses || !message || typeof message !== 'object' || Array.isArray(message)) return false;
  if (typeof message.method !== 'string') return false;
  return engine.converses(message.method, (message.params ?? {}) as Record<string, unknown>);
}

async function answer(
  methods: Record<string, Method>,
  deps: Deps,
  identity: Identity,
  version: string | undefined,
  names: ToolNames,
  session: LegacySession,
  conversations: Conversations,
  message: Message,
  reply: FastifyReply,
  shutdown: AbortSignal,
) {
  const signal = requestSignal(reply, shutdown);
  const ctx: RpcContext = {
    deps,
    identity,
    protocolVersion: version,
    get signal() {
      return signal();
    },
    names,
    apps: session.apps,
  };
  const sessionId = session.id;
  if (sessionId !== undefined) ctx.setLogLevel = (level) => conversations.setLevel(sessionId, level);
  const params = (message.params ?? {}) as Record<string, unknown>;
  try {
    const result = await (methods[message.method as string] as Method)(ctx, params);
    return reply.send({ jsonrpc: '2.0', id: message.id, result });
  } catch (thrown) {
    const { code, message: text, data } = RpcError.from(thrown);
    return reply.send({
      jsonrpc: '2.0',
      id: message.id,
      error: { code, message: text, ...(data === undefined ? {} : { data }) },
    });
  }
}

/**
 * With an engine that converses, a client's answer may reach another process than the one whose
 * call waits for it: each process passes on what it did not ask for (REPLIES_CHANNEL) and takes
 * what others pass on, on a connection of its own.
 */
function passAnswersOn(app: FastifyInstance, deps: Deps, engine: McpEngine, conversations: Conversations) {
  const url = deps.env.DATABASE_URL;
  if (!engine.legacy.converses || !url) return;
  let listening: { close: () => Promise<void> } | undefined;
  app.addHook('onReady', async () => {
    listening = await listenOnDedicatedConnection(url, 'beckon-mcp-answers', REPLIES_CHANNEL, {
      onnotify: (payload) => {
        const passed = relayed(payload);
        if (passed) conversations.answered(passed.owner, passed.reply);
      },
    });
  });
  app.addHook('onClose', async () => listening?.close());
}

/**
 * POST /mcp: the agent tool interface (MCP over Streamable HTTP, stateless). The bearer token (API
 * key or OAuth access token) is resolved first: without one, 401 and the challenge that points to
 * the OAuth metadata. Common requests take the lean path; the rest get an SDK server and
 * transport of their own, answering JSON, or server-sent events when the client asked for progress.
 */
export function registerMcp(app: FastifyInstance, deps: Deps, engine: McpEngine = AGENT_ENGINE): void {
  // Calls that wait (wait_seconds, tasks/result) end when the process stops, so it can.
  const shutdown = new AbortController();
  app.addHook('preClose', async () => shutdown.abort());
  const conversations = new Conversations();
  passAnswersOn(app, deps, engine, conversations);
  // A foreign Origin is refused before this (http/mcp-origin.ts, registered ahead of the rate limit).
  app.post('/mcp', { preHandler: rejectLimitedMcp }, async (request, reply) => {
    const identity = await authenticate(deps, request);
    if (isModernRequest(request)) {
      const names = toolNames(deps, request, MODERN_REVISION);
      return answerModern(
        engine.modern,
        deps,
        identity,
        names,
        SERVED_VERSIONS,
        request,
        reply,
        shutdown.signal,
      );
    }
    const header = request.headers['mcp-protocol-version'];
    const version = typeof header === 'string' ? header : undefined;
    const names = toolNames(deps, request, version);
    // A client answering what the server asked in a call's stream (conversation.ts).
    const replies = repliesOf(request.body);
    if (replies) {
      const owner = ownerOf(identity);
      for (const answer of replies)
        if (!conversations.answered(owner, answer) && engine.legacy.converses && passedOn(answer))
          await deps.sql`select pg_notify(${REPLIES_CHANNEL}, ${JSON.stringify({ owner, reply: answer })})`.catch(
            // Over Postgres's 8000 bytes: only the process that asked can take it.
            (error: unknown) => deps.log.warn({ err: error }, 'an MCP answer could not be passed on'),
          );
      return reply.code(202).send();
    }
    const declared = initializeDeclares(request);
    const session: LegacySession = declared
      ? { id: undefined, ...declared }
      : await sessionOf(deps.env, identity, request.headers['mcp-session-id']);
    const streamed = converses(engine.legacy, request.body);
    const message = streamed ? null : lean(engine.legacy.methods, request, version);
    if (message)
      return answer(
        engine.legacy.methods,
        deps,
        identity,
        version,
        names,
        session,
        conversations,
        message,
        reply,
        shutdown.signal,
      );
    const refused = refusal(request, version);
    if (refused) return reply.code(refused.status).send(refused.body);
    const server = agentServer(
      deps,
      identity,
      version,
      names,
      session,
      engine.legacy,
      conversations,
      shutdown.signal,
    );
    // A session id only when there is something to carry: Apps, or an engine that converses.
    if (declared && (declared.apps || engine.legacy.converses))
      reply.raw.setHeader('mcp-session-id', await issueSession(deps.env, identity, declared));
    const progress = JSON.stringify(request.body ?? null).includes('"progressToken"');
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !progress && !streamed,
    });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
  // Stateless server: no standalone stream or session to delete (events are at GET /mcp/sse).
  app.route({
    method: ['GET', 'DELETE'],
    url: '/mcp',
    handler: async (_request, reply) =>
      reply
        .code(405)
        .header('allow', 'POST')
        .send({ error: 'method not allowed: use POST (events: GET /mcp/sse)', code: 'method_not_allowed' }),
  });
}
