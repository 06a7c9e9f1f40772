import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/**
 * The request a piece of work is done for: set at the HTTP edge for the whole request, and by the
 * worker for a job enqueued during one. Logs (log.ts), jobs (job-queue.ts) and outbound requests
 * (delivery/outbound.ts) read it, so one id follows a request through every process. One store
 * per process, as AsyncLocalStorage is meant to be used: it holds nothing between requests.
 */
export const requestContext = new AsyncLocalStorage<{ requestId: string }>();

export const currentRequestId = (): string | undefined => requestContext.getStore()?.requestId;

/** An id a caller may give us: short, printable, nothing a log line could be confused by. */
const CALLER_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;
/** W3C Trace Context: version-traceid-parentid-flags; its trace id names the request. */
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The id of a request: its X-Request-Id, else its traceparent's trace id, else a new one. */
export function requestIdFrom(headers: Record<string, string | string[] | undefined>): string {
  const given = headers['x-request-id'];
  if (typeof given === 'string' && CALLER_ID.test(given)) return given;
  const trace = headers.traceparent;
  const traceId = typeof trace === 'string' ? TRACEPARENT.exec(trace.trim())?.[1] : undefined;
  if (traceId && !/^0+$/.test(traceId)) return traceId;
  return randomUUID();
}
