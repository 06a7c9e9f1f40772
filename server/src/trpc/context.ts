import type { FastifyRequest } from 'fastify';
import { bearerToken, type Identity } from '../auth/identity';
import type { Deps } from '../deps';
import type {} from '../http/request-state';

export type Context = {
  deps: Deps;
  /** The bearer token, if any; resolved into `identity` by authedProcedure unless it is already. */
  token: string | null;
  identity: Identity | null;
  idempotencyKey: string | null;
  /** Headers a procedure adds to its REST response (e.g. Idempotent-Replayed). */
  responseHeaders: Record<string, string>;
  /** W3C trace context of the request (MCP `_meta`), kept on an item for its callbacks. */
  trace?: TraceContext;
};

export type TraceContext = { traceparent: string; tracestate?: string };

const header = (req: FastifyRequest, name: string) => {
  const value = req.headers[name];
  return typeof value === 'string' ? value : null;
};

export function contextFactory(deps: Deps) {
  return ({ req }: { req: FastifyRequest }): Context => {
    // Resolved already when the rate limit counted the request (http/api-rate-limit.ts).
    const identity = req.identity ?? null;
    return {
      deps,
      token: bearerToken(header(req, 'authorization') ?? undefined),
      identity,
      idempotencyKey: header(req, 'idempotency-key'),
      responseHeaders: {},
    };
  };
}
