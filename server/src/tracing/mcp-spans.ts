import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { TraceHeaders } from './tracing';
import { contextFromHeaders, tracer, tracingEnabled } from './tracing';

/**
 * Runs an MCP method as a span of the trace its `_meta.traceparent` names (the agent's), or of
 * the HTTP request's when it names none: what the method does (queries, the jobs it enqueues and
 * so the item's callbacks) joins the agent's trace. Just the call when tracing is off.
 */
export async function inMcpSpan<T>(method: string, given: TraceHeaders | undefined, run: () => Promise<T>) {
  if (!tracingEnabled()) return run();
  const parent = given ? contextFromHeaders(given) : context.active();
  const span = tracer.startSpan(
    `mcp ${method}`,
    { kind: SpanKind.SERVER, attributes: { 'rpc.system': 'jsonrpc', 'rpc.method': method } },
    parent,
  );
  // The HTTP request's span, when it is another trace: whoever reads one finds the other.
  const http = trace.getActiveSpan();
  if (given && http) span.addLink({ context: http.spanContext() });
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      return await run();
    } catch (error) {
      span.setStatus({
        code: SpanStatusCode.ERROR,
        ...(error instanceof Error ? { message: error.message } : {}),
      });
      throw error;
    } finally {
      span.end();
    }
  });
}
