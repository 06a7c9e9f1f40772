import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken } from '../auth/identity';
import { resolveIdentity } from '../auth/resolve-identity';
import { hashToken } from '../auth/tokens';
import type { Deps } from '../deps';
import { addressSubject } from '../rate-limit/client-address';
import { LocalFirstCounter } from '../rate-limit/local-counter';
import { isLimited, policyOf, rateLimitedError } from '../rate-limit/policy';
import type {} from './request-state';
import { sendInSurfaceShape, trpcCalls } from './surface-replies';

type Surface = 'rest' | 'trpc' | 'mcp' | null;

const surfaceOf = (url: string): Surface =>
  url.startsWith('/api/') || url === '/api'
    ? 'rest'
    : url.startsWith('/trpc/')
      ? 'trpc'
      : url === '/mcp' || url.startsWith('/mcp?') || url.startsWith('/mcp/')
        ? 'mcp'
        : null;

/** An inbound webhook's token is its credential (its callers share addresses, e.g. a provider's). */
const INBOUND = /^\/api\/webhooks\/inbound\/([^/?]+)/;

/**
 * The `api` limit of the resource process: every request to /api, /trpc and /mcp counts against
 * its credential (session, API key or OAuth token, resolved here through the identity cache and
 * handed on to the procedures), else its inbound webhook token, else its client address.
 * Counting is in memory, shared through PostgreSQL every RATE_LIMIT_SYNC_MS (LocalFirstCounter),
 * so the request path costs no round trip. A tRPC batch counts each of its calls.
 */
export function registerApiRateLimit(app: FastifyInstance, deps: Deps): void {
  app.decorateRequest('identity', undefined);
  app.decorateRequest('rateLimitError', null);
  if (!deps.env.RATE_LIMIT_ENABLED) return;
  const counter = new LocalFirstCounter(deps.sql, policyOf(deps.env, 'api'), {
    syncMs: deps.env.RATE_LIMIT_SYNC_MS,
    now: () => deps.clock().getTime(),
    log: deps.log,
  });
  counter.start();
  app.addHook('onClose', () => counter.stop());

  // The fields that do not change, made once (this runs on every API request).
  const { limit, windowSeconds } = counter.policy;
  const policyField = `"api";q=${limit};w=${windowSeconds}`;

  /** Counts the request; true when it was answered with a 429. */
  const count = (request: FastifyRequest, reply: FastifyReply, surface: Surface, subject: string) => {
    const now = deps.clock().getTime();
    const calls = surface === 'trpc' ? trpcCalls(request.url, '/trpc').length : 1;
    const verdict = counter.hit(subject, calls, now);
    if (!isLimited(verdict)) {
      // rateLimitHeaders' fields, built here without the intermediate object.
      const reset = Math.max(1, Math.ceil((verdict.resetAt - now) / 1000));
      reply
        .header('ratelimit-policy', policyField)
        .header('ratelimit', `"api";r=${limit - verdict.count};t=${reset}`);
      return false;
    }
    const error = rateLimitedError(verdict, now);
    // MCP's answer names the JSON-RPC request id, known once the body is read (rejectLimitedMcp).
    if (surface === 'mcp' && request.method === 'POST') {
      request.rateLimitError = error;
      return false;
    }
    sendInSurfaceShape(request, reply, error, { trpcPrefix: surface === 'trpc' ? '/trpc' : undefined });
    return true;
  };

  app.addHook('onRequest', (request, reply, done) => {
    const surface = surfaceOf(request.url);
    if (surface === null) return done();
    const token = bearerToken(request.headers.authorization);
    const cached = token && deps.credentials ? deps.credentials.get(hashToken(token)) : null;
    if (cached) {
      // The common case, kept synchronous: a known credential.
      request.identity = cached;
      if (!count(request, reply, surface, `cred:${cached.credentialId}`)) done();
      return;
    }
    const resolving = token ? resolveIdentity(deps, token) : Promise.resolve(null);
    resolving.then(
      (identity) => {
        request.identity = identity;
        const inbound = identity ? null : INBOUND.exec(request.url)?.[1];
        const subject = identity
          ? `cred:${identity.credentialId}`
          : inbound
            ? `inbound:${hashToken(inbound)}`
            : addressSubject(request.ip);
        if (!count(request, reply, surface, subject)) done();
      },
      (error: Error) => done(error),
    );
  });
}

/** The preHandler of POST /mcp: the 429 as a JSON-RPC error answering the request's id. */
export function rejectLimitedMcp(request: FastifyRequest, reply: FastifyReply, done: () => void) {
  if (request.rateLimitError) sendInSurfaceShape(request, reply, request.rateLimitError, { jsonRpc: true });
  else done();
}
