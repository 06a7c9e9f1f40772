import type { Sql } from '@beckon/db';
import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { tracer, tracingEnabled } from './tracing';

/** The part of postgres.js's Query (postgres/src/query.js) this hook relies on. */
type QueryInternals = {
  executed: boolean;
  handle: () => Promise<void>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** The statement as sent ($1, $2... for the values), set when the query is built. */
  string?: string;
};

const traced = Symbol('beckon.traced');
/** The longest statement text kept on a span. */
const MAX_STATEMENT = 2000;

/**
 * A client span per database query made within a trace (a request, a job). postgres.js has no
 * tracing hooks, so this wraps its query class's `handle` (the one method every query runs
 * through once, when first awaited, in the caller's context) and ends the span when the query
 * settles. The statement text is recorded with `$n` placeholders, never the values. The class is
 * found from a query fragment of `sql` (never run); tests/src/foundation/tracing.test.ts fails if
 * postgres.js changes what this relies on. Nothing is wrapped when tracing is off.
 */
export function traceQueries(sql: Sql): void {
  if (!tracingEnabled()) return;
  const proto = Object.getPrototypeOf(sql`select 1`) as QueryInternals & { [traced]?: true };
  if (proto[traced]) return;
  proto[traced] = true;
  const handle = proto.handle;
  proto.handle = function (this: QueryInternals) {
    const active = context.active();
    // Only within a trace: the background's own queries (heartbeats, sweeps) would each be one.
    if (!this.executed && trace.getSpan(active))
      settleWithSpan(this, tracer.startSpan('postgresql', { kind: SpanKind.CLIENT }, active));
    return handle.call(this);
  };
}

/**
 * Ends the span when the query resolves or rejects. A cursor replaces `resolve`/`reject` for each
 * batch it reads, so they are wrapped whenever they are set, not just once.
 */
function settleWithSpan(query: QueryInternals, span: Span): void {
  let ended = false;
  const end = (error?: unknown) => {
    if (ended) return;
    ended = true;
    const statement = query.string ?? '';
    const operation = /^\s*(\w+)/.exec(statement)?.[1]?.toUpperCase();
    if (operation) span.updateName(operation);
    span.setAttributes({
      'db.system.name': 'postgresql',
      'db.query.text': statement.slice(0, MAX_STATEMENT),
      ...(operation ? { 'db.operation.name': operation } : {}),
    });
    if (error !== undefined)
      span.setStatus({
        code: SpanStatusCode.ERROR,
        ...(error instanceof Error ? { message: error.message } : {}),
      });
    span.end();
  };
  for (const key of ['resolve', 'reject'] as const) {
    let current = query[key];
    const wrapped = (value: unknown) => {
      end(key === 'reject' ? value : undefined);
      return current(value);
    };
    Object.defineProperty(query, key, {
      configurable: true,
      get: () => wrapped,
      set: (next: (value: unknown) => void) => {
        current = next;
      },
    });
  }
}
