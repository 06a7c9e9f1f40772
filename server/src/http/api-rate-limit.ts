import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken } from '../auth/identity';
import { resolveIdentity } from '../auth/resolve-identity';
import { hashToken } from '../auth/tokens';
import type { Deps } from '../deps';
import { AppError } from '../errors';
import { addressSubject } from '../rate-limit/client-address';
import { LocalFirstCounter } from '../rate-limit/local-counter';
import { isLimited, policyOf, rateLimitedError } from '../rate-limit/policy';
import type {} from './request-state';
import { sendInSurfaceShape, TRPC_MAX_BATCH, trpcCalls } from './surface-replies';

type Surface = 'rest' | 'trpc' | 'mcp' | null;

/** Where the limit applies on each process, and how a request's surface is told. */
type Scope = {
  trpcPrefix: string;
  surfaceOf: (path: string) => Surface;
  /** Whether requests without a bearer token count (by client address) here. */
  anonymous: boolean;
};

const resourceSurface = (path: string): Surface =>
  path.startsWith('/api/') || path === '/api'
    ? 'rest'
    : path.startsWith('/trpc/')
      ? 'trpc'
      : path === '/mcp' || path.startsWith('/mcp?') || path.startsWith('/mcp/')
        ? 'mcp'
        : null;

const authSurface = (path: string): Surface =>
  path.startsWith('/auth/trpc/')
    ? 'trpc'
    : path.startsWith('/auth/') || path.startsWith('/oauth/')
      ? 'rest'
      : null;

const SCOPES = {
  resource: { trpcPrefix: '/trpc', surfaceOf: resourceSurface, anonymous: true },
  // The sign-in routes have their per-address limits (sign-in-rate-limit.ts); here every request
  // that carries a bearer token counts against it (or, when it resolves to nobody, its address).
  auth: { trpcPrefix: '/auth/trpc', surfaceOf: authSurface, anonymous: false },
} satisfies Record<string, Scope>;

/** An inbound webhook's token is its credential (its callers share addresses, e.g. a provider's). */
const INBOUND = /^\/api\/webhooks\/inbound\/([^/?]+)/;

/** The most messages one JSON-RPC batch on POST /mcp may hold, where a revision allows batches. */
export const MCP_MAX_BATCH = 10;
/** Revisions of MCP that allow JSON-RPC batches (2025-06-18 removed them). */
const BATCHING_REVISIONS = new Set(['2024-10-07', '2024-11-05', '2025-03-26']);

/**
 * The `api` limit: every request to /api, /trpc and /mcp of the resource process, and every
 * request with a bearer token to /auth and /oauth of the authorization process, counts against
 * its credential (session, API key or OAuth token, resolved here through the identity cache and
 * handed on to the procedures), else its inbound webhook token, else its client address.
 * A credential has one count on both processes (the same key in PostgreSQL). The surface is read
 * from the route the router chose, and a tRPC batch counts each call as tRPC decodes it, a
 * JSON-RPC batch each message (rejectLimitedMcp): what is counted is what runs.
 * Counting is in memory, shared through PostgreSQL every RATE_LIMIT_SYNC_MS (LocalFirstCounter),
 * so the request path costs no round trip.
 */
export function registerApiRateLimit(
  app: FastifyInstance,
  deps: Deps,
  process: keyof typeof SCOPES = 'resource',
): void {
  app.decorateRequest('identity', undefined);
  app.decorateRequest('rateLimitError', null);
  app.decorateRequest('countMore', null);
  if (!deps.env.RATE_LIMIT_ENABLED) return;
  const scope: Scope = SCOPES[process];
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
    // A batch past TRPC_MAX_BATCH runs no call (tRPC refuses it): it counts as one request.
    const batch = surface === 'trpc' ? trpcCalls(request.url, scope.trpcPrefix).length : 1;
    const calls = batch > TRPC_MAX_BATCH ? 1 : batch;
    const verdict = counter.hit(subject, calls, now);
    request.countMore = (hits) => {
      const more = counter.hit(subject, hits);
      return isLimited(more) ? rateLimitedError(more, deps.clock().getTime()) : null;
    };
    if (!isLimited(verdict)) {
      // rateLimitHeaders' fields, built here without the intermediate object. Raw: the
      // authorization server's routes answer on the raw response. A sign-in limit's fields,
      // set first on the authorization process, stay (the stricter limit of the two).
      if (reply.raw.hasHeader('ratelimit-policy')) return false;
      const reset = Math.max(1, Math.ceil((verdict.resetAt - now) / 1000));
      reply.raw.setHeader('ratelimit-policy', policyField);
      reply.raw.setHeader('ratelimit', `"api";r=${limit - verdict.count};t=${reset}`);
      return false;
    }
    const error = rateLimitedError(verdict, now);
    // MCP's answer names the JSON-RPC request id, known once the body is read (rejectLimitedMcp).
    if (surface === 'mcp' && request.method === 'POST') {
      request.rateLimitError = error;
      return false;
    }
    sendInSurfaceShape(request, reply, error, {
      trpcPrefix: surface === 'trpc' ? scope.trpcPrefix : undefined,
    });
    return true;
  };

  app.addHook('onRequest', (request, reply, done) => {
    // The route the router chose (`/%61pi/me` is routed as `/api/me`), else the path as written.
    const surface = scope.surfaceOf(request.routeOptions.url ?? request.url);
    if (surface === null) return done();
    const token = bearerToken(request.headers.authorization);
    if (!token && !scope.anonymous) return done();
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

/**
 * The preHandler of POST /mcp, once its body is read: a JSON-RPC batch is refused at the
 * revisions that have none and past MCP_MAX_BATCH messages, and otherwise counts one request
 * per message; a 429 is a JSON-RPC error answering the request's id.
 */
export function rejectLimitedMcp(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  const body = request.body;
  if (Array.isArray(body)) {
    const header = request.headers['mcp-protocol-version'];
    // Without the header a server assumes 2025-03-26 (the specification's transport section).
    const revision = typeof header === 'string' ? header : '2025-03-26';
    if (!BATCHING_REVISIONS.has(revision) || body.length === 0 || body.length > MCP_MAX_BATCH) {
      const reason = BATCHING_REVISIONS.has(revision)
        ? `a batch holds 1 to ${MCP_MAX_BATCH} messages`
        : `no batches at protocol revision ${revision}`;
      sendInSurfaceShape(request, reply, AppError.invalid({ body: reason }), { jsonRpc: true });
      return;
    }
    request.rateLimitError ??= request.countMore?.(body.length - 1) ?? null;
  }
  if (request.rateLimitError) sendInSurfaceShape(request, reply, request.rateLimitError, { jsonRpc: true });
  else done();
}
