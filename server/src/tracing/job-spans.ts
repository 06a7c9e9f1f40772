import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Task } from 'graphile-worker';
import { contextFromHeaders, tracer, tracingEnabled } from './tracing';

/**
 * A task that takes the trace context its job was enqueued with off its payload (job-queue.ts)
 * and, when tracing, runs as a consumer span of that trace: the request that enqueued the job,
 * or the job that did. A job enqueued outside any trace (a cron task) starts its own.
 */
export function inJobSpan(name: string, task: Task): Task {
  return (payload, helpers) => {
    let given: { traceparent?: unknown; tracestate?: unknown } = {};
    let rest = payload;
    if (typeof payload === 'object' && payload !== null && 'traceparent' in payload) {
      const { traceparent, tracestate, ...others } = payload as Record<string, unknown>;
      given = { traceparent, tracestate };
      rest = others;
    }
    if (!tracingEnabled()) return task(rest, helpers);
    const parent = contextFromHeaders({
      ...(typeof given.traceparent === 'string' ? { traceparent: given.traceparent } : {}),
      ...(typeof given.tracestate === 'string' ? { tracestate: given.tracestate } : {}),
    });
    const span = tracer.startSpan(
      `job ${name}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.system': 'graphile_worker',
          'messaging.operation.type': 'process',
          'messaging.destination.name': name,
          'messaging.message.id': String(helpers.job.id),
          'beckon.job.attempt': helpers.job.attempts,
        },
      },
      parent,
    );
    return context.with(trace.setSpan(parent, span), async () => {
      try {
        return await task(rest, helpers);
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
  };
}
