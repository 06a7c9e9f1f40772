import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { tracer, tracingEnabled } from './tracing';

/** How a call that failed failed: its HTTP status and error code (errors.ts). */
export type CallFailure = { status: number; code: string };

/**
 * Runs one procedure call (a tRPC call of a batch, a REST operation, an MCP tool) as a span
 * `procedure <path>` of the active trace, so each call of a batch has its own span and its
 * queries under it. A failure carries its code, and marks the span an error when it is the
 * server's (5xx). Just the call when tracing is off.
 */
export async function inProcedureSpan<T>(
  path: string,
  type: string,
  run: () => Promise<T>,
  failure: (result: T) => CallFailure | undefined,
): Promise<T> {
  if (!tracingEnabled()) return run();
  const attributes = { 'rpc.system': 'trpc', 'rpc.method': path, 'beckon.procedure.type': type };
  return tracer.startActiveSpan(
    `procedure ${path}`,
    { kind: SpanKind.INTERNAL, attributes },
    async (span) => {
      try {
        const result = await run();
        const failed = failure(result);
        if (failed) span.setAttribute('beckon.error_code', failed.code);
        if (failed && failed.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        return result;
      } catch (error) {
        // Thrown rather than answered: the database guard's 503 while the database is down.
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
