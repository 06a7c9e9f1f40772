import { AsyncResource } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';
import {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { requestContext, requestIdFrom } from '../request-context';
import { registerRequestSpans } from '../tracing/http-spans';
import { redactUrl } from './log-redaction';
// The caller the rate limit resolved (request.identity).
import type {} from './request-state';

declare module 'fastify' {
  interface FastifyRequest {
    /** The tRPC procedures a `/trpc/…` request calls (several for a batch), set by procedures.ts. */
    procedures?: string[];
  }
}

/** Routes polled by probes and scrapers: their lines are debug, not info. */
const PROBES = new Set(['/health', '/ready', '/metrics']);

/**
 * The Fastify options of every app: the request id from X-Request-Id / traceparent (or a new one),
 * no "incoming request" line (one line per request, once completed: registerRequestLog), and no
 * per-request logger binding (the id comes from the logger's mixin, log.ts, in every line written
 * while serving the request, the lines of other modules included).
 */
export const requestLogOptions = {
  genReqId: (request: IncomingMessage) => requestIdFrom(request.headers),
  logController: new LogController({ disableRequestLogging: true }),
  childLoggerFactory: (logger: FastifyBaseLogger, _bindings: unknown, options: object) =>
    logger.child({}, options),
};

/** What the completion line says of a request (its URL with secrets redacted, log-redaction.ts). */
export function completionFields(request: FastifyRequest, reply: FastifyReply) {
  const identity = request.identity;
  return {
    method: request.method,
    route: request.routeOptions.url ?? 'unmatched',
    url: redactUrl(request.url),
    ...(request.procedures ? { procedures: request.procedures } : {}),
    status: reply.raw.statusCode,
    duration_ms: Math.round(reply.elapsedTime * 10) / 10,
    ...(identity
      ? {
          org_id: identity.orgId,
          credential: identity.clientId ? 'oauth' : identity.source,
          ...(identity.agentId ? { agent_id: identity.agentId } : {}),
        }
      : {}),
  };
}

/**
 * Runs each request in its request context, echoes its id (X-Request-Id, on answers written past
 * Fastify too: streams, MCP) and writes one line when it ends: method, route pattern, status,
 * duration, organization and credential kind. `level`: the gateway's lines are debug. When
 * tracing, each request is a span too (tracing/http-spans.ts).
 */
export function registerRequestLog(app: FastifyInstance, level: 'info' | 'debug' = 'info'): void {
  // First: the request's span is active in the request context, so its lines carry the trace id.
  registerRequestSpans(app);
  app.addHook('onRequest', (request, reply, done) => {
    const store = { requestId: request.id };
    reply.raw.setHeader('x-request-id', request.id);
    requestContext.run(store, () => {
      // Bound to the request's context (its trace's too): the socket closes in none of its own.
      reply.raw.once(
        'close',
        AsyncResource.bind(() => {
          const fields = completionFields(request, reply);
          const lineLevel = PROBES.has(fields.route) ? 'debug' : level;
          // The app's logger: a route's own level (the proxy's, /metrics') is for Fastify's lines.
          app.log[lineLevel](fields, 'request completed');
        }),
      );
      done();
    });
  });
}
