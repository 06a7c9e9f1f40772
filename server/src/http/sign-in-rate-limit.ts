import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps';
import { AppError } from '../errors';
import { addressSubject } from '../rate-limit/client-address';
import { countNow } from '../rate-limit/direct';
import { type PolicyName, rateLimitHeaders } from '../rate-limit/policy';
import { sendInSurfaceShape, trpcCalls } from './surface-replies';

/**
 * The authorization process's guessable or mail-sending routes, by `<METHOD> <route>`, and the
 * per-client-address limit each counts against (the per-email limit of magic links is counted
 * where the address is read: magic-link.service.ts).
 */
export const SIGN_IN_LIMITED_ROUTES: Record<string, PolicyName> = {
  'POST /auth/magic-link': 'sign_in',
  'POST /auth/dev-login': 'sign_in',
  'POST /oauth/interaction/:uid/magic-link': 'sign_in',
  'POST /oauth/interaction/:uid/dev-login': 'sign_in',
  'GET /auth/oauth/idp_a': 'sign_in',
  'GET /auth/oauth/idp_b': 'sign_in',
  'GET /auth/oauth/idp_c': 'sign_in',
  'GET /auth/verify': 'verify',
  'POST /oauth/interaction/:uid/verify': 'verify',
  'GET /auth/invitations/:code': 'verify',
  'POST /auth/invitations/accept': 'verify',
  'GET /auth/oauth/idp_a/callback': 'verify',
  'GET /auth/oauth/idp_b/callback': 'verify',
  'POST /auth/oauth/idp_c/callback': 'verify',
  'POST /oauth/token': 'token',
  'POST /oauth/revoke': 'token',
  'POST /oauth/register': 'register',
};

/** The same operations over tRPC (`/auth/trpc/<procedure>`). */
const PROCEDURES: Record<string, PolicyName> = {
  'accounts.requestMagicLink': 'sign_in',
  'accounts.devLogin': 'sign_in',
  'accounts.verifyMagicLink': 'verify',
  'accounts.previewInvitation': 'verify',
  'accounts.acceptInvitation': 'verify',
};

const TRPC_PREFIX = '/auth/trpc';

/** How many calls of each policy a request makes (a tRPC batch may mix several). */
function callsOf(request: FastifyRequest): Map<PolicyName, number> {
  const calls = new Map<PolicyName, number>();
  const route = request.routeOptions.url;
  if (route?.startsWith(`${TRPC_PREFIX}/`)) {
    for (const procedure of trpcCalls(request.url, TRPC_PREFIX)) {
      const policy = PROCEDURES[procedure];
      if (policy) calls.set(policy, (calls.get(policy) ?? 0) + 1);
    }
    return calls;
  }
  const policy = SIGN_IN_LIMITED_ROUTES[`${request.method} ${route}`];
  if (policy) calls.set(policy, 1);
  return calls;
}

/**
 * Per-client-address limits on the authorization process, counted in PostgreSQL (one upsert per
 * request, shared exactly by every process): these routes are quiet, so the round trip is
 * cheap, and exactness matters more than for the busy API. A limited request never reaches its
 * handler (nothing is mailed, looked up or issued). Successful answers carry the RateLimit fields.
 */
export function registerSignInRateLimits(app: FastifyInstance, deps: Deps): void {
  if (!deps.env.RATE_LIMIT_ENABLED) return;
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const calls = callsOf(request);
    if (calls.size === 0) return;
    try {
      for (const [policy, hits] of calls) {
        const [verdict] = (await countNow(deps, policy, [addressSubject(request.ip)], hits)) ?? [];
        // Raw headers: oidc-provider's routes answer on the raw response (hijacked).
        if (verdict) {
          for (const [name, value] of Object.entries(rateLimitHeaders(verdict, deps.clock().getTime()))) {
            reply.raw.setHeader(name, value);
          }
        }
      }
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const trpc = request.routeOptions.url?.startsWith(`${TRPC_PREFIX}/`);
      return sendInSurfaceShape(request, reply, error, { trpcPrefix: trpc ? TRPC_PREFIX : undefined });
    }
  });
}
