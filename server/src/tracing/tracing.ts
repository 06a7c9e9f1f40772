import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Env } from '../env';

/**
 * OpenTelemetry tracing (docs/architecture.md, "Tracing"). Everything here goes through
 * `@opentelemetry/api`, which does nothing until a tracer provider is registered; the SDK and the
 * OTLP exporter (sdk.ts) are only loaded when OTEL_EXPORTER_OTLP_ENDPOINT is set. The hooks that
 * make spans (HTTP, queries, jobs, outbound requests) are only installed then too, so a process
 * without tracing runs none of their code.
 */

/** The tracer of every span Beckon makes (a no-op tracer until startTracing registers the SDK). */
export const tracer = trace.getTracer('beckon');

let enabled = false;

/** Whether this process exports spans: the hooks that make them are installed only then. */
export const tracingEnabled = (): boolean => enabled;

export type TracingSettings = Partial<
  Pick<Env, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' | 'OTEL_SERVICE_NAME'>
>;

/** Where spans go: the traces endpoint as given, else `<endpoint>/v1/traces` (the OTLP rule). */
export function tracesUrl(env: TracingSettings): string | undefined {
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT) return undefined;
  return `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * Registers the SDK for this process when an OTLP endpoint is configured, and answers the call
 * that flushes the spans still buffered and stops exporting (on shutdown); undefined when tracing
 * is off. `role` names the process (`beckon-<role>`) unless OTEL_SERVICE_NAME does.
 */
export async function startTracing(
  env: TracingSettings,
  role: string,
): Promise<(() => Promise<void>) | undefined> {
  const url = tracesUrl(env);
  if (!url || enabled) return undefined;
  const { registerTracing } = await import('./sdk');
  const shutdown = registerTracing({ url, serviceName: env.OTEL_SERVICE_NAME ?? `beckon-${role}` });
  enabled = true;
  const { traceOutboundRequests } = await import('./outbound-spans');
  traceOutboundRequests();
  return shutdown;
}

/** The active span's ids, for log lines (log.ts); none outside a span or with tracing off. */
export function activeTraceIds(): { trace_id: string; span_id: string } | undefined {
  if (!enabled) return undefined;
  const span = trace.getActiveSpan()?.spanContext();
  return span ? { trace_id: span.traceId, span_id: span.spanId } : undefined;
}

/** W3C trace context as header fields (`traceparent`, `tracestate`). */
export type TraceHeaders = { traceparent: string; tracestate?: string };

/** The active span's context as W3C headers, to carry it on (a job's payload); none when off. */
export function activeTraceHeaders(): TraceHeaders | undefined {
  if (!enabled) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent
    ? { traceparent: carrier.traceparent, ...(carrier.tracestate ? { tracestate: carrier.tracestate } : {}) }
    : undefined;
}

/** The context W3C headers name (a remote parent), or the root context when they name none. */
export const contextFromHeaders = (headers: Partial<TraceHeaders> | undefined) =>
  headers?.traceparent ? propagation.extract(ROOT_CONTEXT, headers) : ROOT_CONTEXT;

/**
 * Runs `run` as part of the trace `given` names when that is another trace than the active one:
 * an item's callback carries its creator's trace context (MCP `_meta`) even when a later request
 * (a person's answer) caused it, and its outbound span joins that trace. Just the call otherwise.
 */
export function inGivenTrace<T>(given: TraceHeaders | undefined, run: () => T): T {
  if (!enabled || !given) return run();
  const stored = contextFromHeaders(given);
  const storedTrace = trace.getSpanContext(stored)?.traceId;
  if (!storedTrace || storedTrace === trace.getActiveSpan()?.spanContext().traceId) return run();
  return context.with(stored, run);
}

/**
 * Runs `run` as a client span of the active trace (an exchange no HTTP hook sees: SMTP), with the
 * span's W3C headers handed to it to send along; just the call, without headers, when off.
 */
export async function inClientSpan<T>(
  name: string,
  attributes: Record<string, string | number>,
  run: (headers: TraceHeaders | undefined) => Promise<T>,
): Promise<T> {
  if (!enabled) return run(undefined);
  return tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      return await run(activeTraceHeaders());
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}
