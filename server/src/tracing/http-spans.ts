import {
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { tracer, tracingEnabled } from './tracing';

/** The open server span of each request being served. */
const spans = new WeakMap<FastifyRequest, Span>();

/**
 * A server span per request of a traced app (REST, tRPC, MCP, the dashboard's pages, what the
 * gateway forwards), continuing the caller's trace when it sends a W3C `traceparent`. The rest of
 * the request runs in the span's context, so its queries, jobs and outbound requests are its
 * children. The span ends with the response; a stream's span ends once the stream is open
 * (streamOpened). Nothing is registered when tracing is off.
 */
export function registerRequestSpans(app: FastifyInstance): void {
  if (!tracingEnabled()) return;
  app.addHook('onRequest', (request, reply, done) => {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = tracer.startSpan(
      request.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          'url.path': request.url.split('?', 1)[0] ?? '/',
          'beckon.request_id': request.id,
        },
      },
      parent,
    );
    spans.set(request, span);
    reply.raw.once('close', () => endRequestSpan(request, reply.raw.statusCode));
    context.with(trace.setSpan(parent, span), done);
  });
}

/** Ends a request's span with what its response was: route, status, the procedures it called. */
function endRequestSpan(request: FastifyRequest, status: number, stream = false): void {
  const span = spans.get(request);
  if (!span) return;
  spans.delete(request);
  const route = request.routeOptions.url;
  if (route) {
    span.updateName(`${request.method} ${route}`);
    span.setAttribute('http.route', route);
  }
  span.setAttribute('http.response.status_code', status);
  if (request.procedures) span.setAttribute('beckon.procedures', request.procedures);
  if (stream) span.setAttribute('beckon.stream', true);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/**
 * A stream (SSE, WebSocket: status 101) is open: its request's span ends here rather than when
 * the stream closes, hours later. The stream's own work (events it sends) is not spanned: what
 * it does on a timer runs through outsideTrace.
 */
export function streamOpened(request: FastifyRequest, status = 200): void {
  endRequestSpan(request, status, true);
}

/**
 * `run`, bound to no trace: a timer set while a request is served (a stream's heartbeat) would
 * otherwise run in the request's span for as long as it lasts, and its queries join that trace.
 */
export const outsideTrace = <A extends unknown[], R>(run: (...args: A) => R): ((...args: A) => R) =>
  context.bind(ROOT_CONTEXT, run);
