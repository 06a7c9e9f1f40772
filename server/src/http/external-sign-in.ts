import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../deps';
import { AppError, fieldsFromZod } from '../errors';
import { refused } from '../modules/accounts/external/errors';
import {
  clearFlowCookie,
  flowCookieName,
  readCookie,
  setFlowCookie,
} from '../modules/accounts/external/flow-cookie';
import type { Flow } from '../modules/accounts/external/provider';
import { CALLBACK_METHOD, enabledProviders } from '../modules/accounts/external/providers';
import { completeExternalSignIn } from '../modules/accounts/external/sign-in.service';
import {
  CLIENT_STATE,
  codeVerifierFor,
  IDPS,
  type Idp,
  newNonce,
  RETURN_TO,
  STATE_TTL_MS,
  sameNonce,
  signState,
  verifyState,
} from '../modules/accounts/external/state';
import { BrowserSessions } from '../oauth/browser-session';
import { resolveSigningKey } from '../signing-key';

const ZStartQuery = z.object({
  org_id: z.uuid().optional(),
  return_to: z.string().regex(RETURN_TO, { error: 'must be an OAuth interaction path' }).optional(),
  client_state: z
    .string()
    .regex(CLIENT_STATE, { error: 'must be 16 to 128 base64url characters' })
    .optional(),
});

/** What a user's "Cancel" at the provider comes back as (idp_c has its own word for it). */
const CANCELLED = new Set(['access_denied', 'user_cancelled_authorize']);

/** Form callbacks are a handful of short fields. */
const FORM_LIMIT = 64 * 1024;

/**
 * GET /auth/oauth/<idp> and its callback (a form POST for idp_c): plain routes, not procedures,
 * because both answer with redirects. A provider that is not configured answers 404 on both.
 */
export async function registerExternalSignIn(app: FastifyInstance, deps: Deps): Promise<void> {
  const providers = enabledProviders(deps.env, deps.clock);
  const key = providers.size > 0 ? await resolveSigningKey(deps.env) : '';
  const sessions = providers.size > 0 ? new BrowserSessions(deps.sql, deps.env, key) : null;
  const secureOrigin = deps.env.ISSUER_URL.startsWith('https:');
  const appUrl = deps.env.APP_URL.replace(/\/+$/, '');
  const flowOf = (nonce: string): Flow => ({ nonce, codeVerifier: codeVerifierFor(key, nonce) });
  const providerOf = (idp: Idp) => {
    const provider = providers.get(idp);
    if (!provider) throw AppError.notFound();
    return provider;
  };

  const start = (idp: Idp) => async (request: FastifyRequest, reply: FastifyReply) => {
    const provider = providerOf(idp);
    const query = ZStartQuery.safeParse(request.query);
    if (!query.success) throw AppError.invalid(fieldsFromZod(query.error.issues));
    const nonce = newNonce();
    const exp = Math.floor((deps.clock().getTime() + STATE_TTL_MS) / 1000);
    const { org_id, return_to, client_state } = query.data;
    const state = signState(key, { idp, nonce, org_id, return_to, client_state, exp });
    const url = provider.authorizationUrl(state, flowOf(nonce));
    return reply
      .header('set-cookie', setFlowCookie(idp, nonce, secureOrigin))
      .header('cache-control', 'no-store')
      .redirect(url.toString(), 302);
  };

  const callback = (idp: Idp) => async (request: FastifyRequest, reply: FastifyReply) => {
    const provider = providerOf(idp);
    // The flow is over whatever happens next; the callback URL carries a code: no caching, no referrer.
    reply
      .header('set-cookie', clearFlowCookie(idp, secureOrigin))
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer');
    const params = stringParams(CALLBACK_METHOD[idp] === 'POST' ? request.body : request.query);
    if (params.error) {
      if (CANCELLED.has(params.error)) return reply.redirect(`${appUrl}/login?error=access_denied`, 302);
      throw refused('provider error');
    }
    const state = params.state ? verifyState(key, params.state, deps.clock()) : null;
    if (!state || state.idp !== idp) throw refused('invalid state');
    const nonce = readCookie(request.headers.cookie, flowCookieName(idp));
    if (!nonce || !sameNonce(nonce, state.nonce)) throw refused('state not started in this browser');
    if (!params.code) throw refused('missing code');

    const grant = await completeExternalSignIn(deps, {
      provider,
      code: params.code,
      flow: flowOf(state.nonce),
      params,
      orgId: state.org_id,
    });
    // Back into an OAuth authorization: the browser is signed in by its session cookie there.
    if (state.return_to && sessions) {
      const cookie = await sessions.cookieForToken(grant.token, deps.clock());
      return reply
        .header('set-cookie', cookie) // Fastify adds it beside the flow cookie's removal
        .redirect(`${deps.env.ISSUER_URL.replace(/\/+$/, '')}${state.return_to}`, 302);
    }
    // A fragment: the browser keeps it, servers and their logs never see the token.
    const fragment = new URLSearchParams({
      token: grant.token,
      org_id: grant.org_id,
      user_id: grant.user_id,
      ...(state.client_state ? { client_state: state.client_state } : {}),
    });
    return reply.redirect(`${appUrl}/auth/callback#${fragment}`, 302);
  };

  for (const idp of IDPS) {
    app.get(`/auth/oauth/${idp}`, start(idp));
    if (CALLBACK_METHOD[idp] === 'GET') app.get(`/auth/oauth/${idp}/callback`, callback(idp));
  }
  // The form parser lives in this plugin only: everywhere else the app stays JSON-only.
  await app.register(async (forms) => {
    forms.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_LIMIT },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );
    for (const idp of IDPS) {
      if (CALLBACK_METHOD[idp] === 'POST') forms.post(`/auth/oauth/${idp}/callback`, callback(idp));
    }
  });
}

/** The callback's parameters as strings (repeated or nested values are not ours to read). */
function stringParams(source: unknown): Record<string, string> {
  const params: Record<string, string> = {};
  if (typeof source !== 'object' || source === null) return params;
  for (const [name, value] of Object.entries(source)) if (typeof value === 'string') params[name] = value;
  return params;
}
