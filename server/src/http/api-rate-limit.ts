import type { AnyTRPCProcedure, AnyTRPCRouter } from '@trpc/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken } from '../auth/identity';
import { resolveIdentity } from '../auth/resolve-identity';
import { hashToken } from '../auth/tokens';
import { bearerChallenge, type Deps } from '../deps';
import { AppError } from '../errors';
import { addressSubject } from '../rate-limit/client-address';
import { LocalFirstCounter } from '../rate-limit/local-counter';
import { isLimited, policyOf, rateLimitedError } from '../rate-limit/policy';
import { needsCredential } from '../trpc/procedures';
import type {} from './request-state';
import { answerBeforeBody } from './server-limits';
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
 * The credential is resolved here, before the body is read: a request to a route that needs one
 * (a procedure built on authedProcedure over REST, or every call of a tRPC batch; POST /mcp) without a valid one is answered 401 at
 * once, and its socket closed, whether rate limiting is on or not.
 */
export function registerApiRateLimit(
  app: FastifyInstance,
  deps: Deps,
  router: AnyTRPCRouter,
  process: keyof typeof SCOPES = 'resource',
): void {
  app.decorateRequest('identity', undefined);
  app.decorateRequest('rateLimitError', null);
  app.decorateRequest('countMore', null);
  const scope: Scope = SCOPES[process];
  const protectedCalls = protectedProcedures(router);
  const unauthorized = AppError.unauthorized(bearerChallenge(deps.env));
  /** Whether every part of the request needs a credential (then none is a 401 before the body). */
  const needsOne = (request: FastifyRequest, surface: Surface) => {
    if (surface === 'trpc')
      return trpcCalls(request.url, scope.trpcPrefix).every((p) => protectedCalls.has(p));
    if (surface === 'mcp') return request.method === 'POST' && request.routeOptions.url === '/mcp';
    return (request.routeOptions.config as { protect?: boolean } | undefined)?.protect === true;
  };
  /** True when the request was answered: a 401 before its body is read. */
  const refuseAnonymous = (request: FastifyRequest, reply: FastifyReply, surface: Surface) => {
    if (request.identity || reply.sent || !needsOne(request, surface)) return false;
    if (surface === 'trpc')
      sendInSurfaceShape(request, reply, unauthorized, { trpcPrefix: scope.trpcPrefix });
    else answerBeforeBody(request, reply, unauthorized);
    return true;
  };
  const limited = deps.env.RATE_LIMIT_ENABLED ? limiter(app, deps, scope) : null;

  app.addHook('onRequest', (request, reply, done) => {
    // The route the router chose (`/%61pi/me` is routed as `/api/me`), else the path as written.
    const surface = scope.surfaceOf(request.routeOptions.url ?? request.url);
    if (surface === null) return done();
    const token = bearerToken(request.headers.authorization);
    const counts = limited !== null && (token !== null || scope.anonymous);
    const cached = token && deps.credentials ? deps.credentials.get(hashToken(token)) : null;
    if (cached || !token) {
      // Kept synchronous: a known credential (the common case), or none.
      request.identity = cached ?? null;
      const subject = cached ? `cred:${cached.credentialId}` : subjectWithout(request);
      if (counts && limited(request, reply, surface, subject)) return;
      if (!refuseAnonymous(request, reply, surface)) done();
      return;
    }
    resolveIdentity(deps, token).then(
      (identity) => {
        request.identity = identity;
        const subject = identity ? `cred:${identity.credentialId}` : subjectWithout(request);
        if (counts && limited(request, reply, surface, subject)) return;
        if (!refuseAnonymous(request, reply, surface)) done();
      },
      (error: Error) => done(error),
    );
  });
}

/** Procedures that need a bearer credential: those built on authedProcedure (needsCredential). */
function protectedProcedures(router: AnyTRPCRouter): Set<string> {
  const procedures = router._def.procedures as Record<string, AnyTRPCProcedure>;
  return new Set(
    Object.entries(procedures)
      .filter(([, procedure]) => needsCredential(procedure))
      .map(([path]) => path),
  );
}

/** Who a request without a valid credential counts as: its inbound webhook token, else its address. */
function subjectWithout(request: FastifyRequest): string {
  const inbound = INBOUND.exec(request.url)?.[1];
  return inbound ? `inbound:${hashToken(inbound)}` : addressSubject(request.ip);
}

/** The counter of the `api` policy; the function counts a request, true when it answered 429. */
function limiter(app: FastifyInstance, deps: Deps, scope: Scope) {
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

  return (request: FastifyRequest, reply: FastifyReply, surface: Surface, subject: string) => {
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
    if (surface === 'mcp' && request.method === 'POST' && request.identity) {
      request.rateLimitError = error;
      return false;
    }
    if (surface === 'trpc') sendInSurfaceShape(request, reply, error, { trpcPrefix: scope.trpcPrefix });
    else answerBeforeBody(request, reply, error);
    return true;
  };
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
