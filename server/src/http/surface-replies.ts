import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type AppError, toJsonRpcError, toTrpcCode } from '../errors';
import { sendAppError } from './errors';

/**
 * The procedures named by a tRPC URL (`/trpc/a.b,c.d?batch=1` names two), decoded as tRPC decodes
 * them (`a.b%2Cc.d` names the same two): what is counted is what runs.
 */
export function trpcCalls(url: string, prefix: string): string[] {
  const query = url.indexOf('?');
  const raw = url.slice(prefix.length + 1, query === -1 ? undefined : query);
  let path = raw;
  try {
    path = decodeURIComponent(raw);
  } catch {
    // A malformed escape: tRPC refuses the request (400); counted as written.
  }
  return path.split(',');
}

/** The most calls one tRPC batch may hold (tRPC refuses a larger one with 400 before any runs). */
export const TRPC_MAX_BATCH = 10;

const isBatch = (request: FastifyRequest) =>
  (request.query as { batch?: unknown } | undefined)?.batch === '1';

/**
 * An error answered before the procedure runs (a 429, a 503 while the database is down) in the
 * shape of the surface asked: tRPC's error envelope (one per call of a batch, as the
 * errorFormatter of trpc/init.ts shapes it), a JSON-RPC error for MCP (its `data` is the REST
 * body), the REST body everywhere else; always with the error's headers (Retry-After, RateLimit).
 */
export function sendInSurfaceShape(
  request: FastifyRequest,
  reply: FastifyReply,
  error: AppError,
  surface: { trpcPrefix?: string; jsonRpc?: boolean } = {},
) {
  if (surface.trpcPrefix) {
    const code = toTrpcCode(error.status);
    const envelope = (path: string) => ({
      error: {
        message: error.body.error,
        code: TRPC_ERROR_CODES_BY_KEY[code],
        data: { code, httpStatus: error.status, path, body: error.body },
      },
    });
    const calls = trpcCalls(request.url, surface.trpcPrefix);
    const body = isBatch(request) ? calls.map(envelope) : envelope(calls[0] ?? '');
    return reply.code(error.status).headers(error.headers).type('application/json').send(body);
  }
  if (surface.jsonRpc) {
    const message = request.body as { id?: unknown } | undefined;
    const id = typeof message?.id === 'string' || typeof message?.id === 'number' ? message.id : null;
    return reply
      .code(error.status)
      .headers(error.headers)
      .type('application/json')
      .send({ jsonrpc: '2.0', id, error: toJsonRpcError(error) });
  }
  return sendAppError(reply, error);
}

/** The surface of a request by its URL: the tRPC prefixes of both processes, MCP, else REST. */
export function surfaceOf(url: string): { trpcPrefix?: string; jsonRpc?: boolean } {
  const trpcPrefix = ['/trpc', '/auth/trpc'].find((prefix) => url.startsWith(`${prefix}/`));
  if (trpcPrefix) return { trpcPrefix };
  return url === '/mcp' || url.startsWith('/mcp?') ? { jsonRpc: true } : {};
}
