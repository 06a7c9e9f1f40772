import { subscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { context, propagation, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { isTracingSuppressed } from '@opentelemetry/core';
import { tracer } from './tracing';

/**
 * A client span for every outbound HTTP request of a traced process, with its W3C `traceparent`
 * (and `tracestate`) set from that span so the receiver continues the trace: callbacks, webhooks,
 * Slack's Web API client and the gateway's forwarding go through undici, S3, push and the payment
 * provider's client through node:http. Both publish diagnostics channels at the moment a request is made,
 * in the caller's context, which is all this needs (no module patching). The exporter's own
 * requests run with tracing suppressed and are left alone. Within a trace, a `traceparent` the
 * caller set is replaced: the receiver's parent is this request's span, in the trace the caller
 * made active (jobs/deliver.ts does so for a callback's stored trace context; the gateway's span
 * continues the one its client sent).
 */
export function traceOutboundRequests(): void {
  traceUndici();
  traceNodeHttp();
}

/**
 * The span of a request, a child of the work that makes it (a request being served, a job); none
 * for a request made outside any trace, or with tracing suppressed (the exporter's own).
 */
function startClientSpan(method: string, url: URL): Span | undefined {
  const active = context.active();
  if (isTracingSuppressed(active) || !trace.getSpan(active)) return undefined;
  return tracer.startSpan(
    method,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': method,
        // Scheme, host and path only: a query string may carry a token.
        'url.full': `${url.origin}${url.pathname}`,
        'server.address': url.hostname,
        ...(url.port ? { 'server.port': Number(url.port) } : {}),
      },
    },
    active,
  );
}

/** The W3C headers of a span, to send with its request. */
function headersOf(span: Span): Array<[string, string]> {
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(context.active(), span), carrier);
  return Object.entries(carrier);
}

function endWith(span: Span, status: number | null, error?: unknown): void {
  if (status !== null) span.setAttribute('http.response.status_code', status);
  if (error !== undefined || (status !== null && status >= 500))
    span.setStatus({
      code: SpanStatusCode.ERROR,
      ...(error instanceof Error ? { message: error.message } : {}),
    });
  span.end();
}

/** undici's request as its channels publish it: headers are a flat [name, value, ...] list. */
type UndiciRequest = {
  origin: string;
  path: string;
  method: string;
  headers: unknown;
  addHeader: (n: string, v: string) => void;
};

function traceUndici(): void {
  const spans = new WeakMap<object, Span>();
  subscribe('undici:request:create', (message) => {
    const { request } = message as { request: UndiciRequest };
    const url = URL.parse(request.path, request.origin);
    const span = url ? startClientSpan(request.method, url) : undefined;
    if (!span) return;
    spans.set(request, span);
    for (const [name, value] of headersOf(span)) {
      const headers = request.headers;
      const at = Array.isArray(headers) ? headers.findIndex((entry, i) => i % 2 === 0 && entry === name) : -1;
      if (at >= 0) (headers as string[])[at + 1] = value;
      else request.addHeader(name, value);
    }
  });
  subscribe('undici:request:headers', (message) => {
    const { request, response } = message as { request: object; response: { statusCode: number } };
    const span = spans.get(request);
    spans.delete(request);
    if (span) endWith(span, response.statusCode);
  });
  subscribe('undici:request:error', (message) => {
    const { request, error } = message as { request: object; error: unknown };
    const span = spans.get(request);
    spans.delete(request);
    if (span) endWith(span, null, error);
  });
}

function traceNodeHttp(): void {
  const spans = new WeakMap<ClientRequest, Span>();
  subscribe('http.client.request.created', (message) => {
    const { request } = message as { request: ClientRequest };
    const host = request.getHeader('host') ?? request.host;
    const url = URL.parse(request.path, `${request.protocol}//${String(host)}`);
    const span = url ? startClientSpan(request.method, url) : undefined;
    if (!span) return;
    spans.set(request, span);
    for (const [name, value] of headersOf(span)) request.setHeader(name, value);
  });
  subscribe('http.client.response.finish', (message) => {
    const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
    const span = spans.get(request);
    spans.delete(request);
    if (span) endWith(span, response.statusCode ?? null);
  });
  subscribe('http.client.request.error', (message) => {
    const { request, error } = message as { request: ClientRequest; error: unknown };
    const span = spans.get(request);
    spans.delete(request);
    if (span) endWith(span, null, error);
  });
}
