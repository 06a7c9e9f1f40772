import { generateKeyPairSync } from 'node:crypto';
import Provider, { type Configuration, errors, type KoaContextWithOIDC } from 'oidc-provider';
import { fetch as outboundFetch, type RequestInit as UndiciRequestInit } from 'undici';
import { outboundDispatcher } from '../delivery/outbound';
import type { Deps } from '../deps';
import { accountExists } from './account';
import { postgresAdapter } from './adapter';
import { CHECKED_CLIENT_METADATA, validateClientMetadata } from './client-metadata';
import { withoutCookies } from './cookies';
import { deriveKey } from './keys';
import { noticePage, PAGE_SECURITY_HEADERS } from './pages';
import { authorizationScope, OAUTH_SCOPES } from './scopes';

/** The specification's paths, served from the authorization process (see http/oauth.ts). */
export const OAUTH_PATHS = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  discovery: '/.well-known/oauth-authorization-server',
} as const;

export const interactionPath = (uid: string) => `/oauth/interaction/${uid}`;

const MINUTE = 60;
const DAY = 24 * 3600;
/** Lifetimes (seconds), documented in docs/oauth.md. */
export const OAUTH_TTL = {
  AccessToken: 3600,
  AuthorizationCode: MINUTE,
  RefreshToken: 30 * DAY,
  Grant: 90 * DAY,
  Interaction: 30 * MINUTE,
  // oidc-provider's own session lasts one authorization request: the browser session is ours.
  Session: 30 * MINUTE,
} as const;

/** oidc-provider's own session cookie (and its signature). */
const OIDC_SESSION_COOKIE = '_session';
const OIDC_SESSION_COOKIES = new Set([OIDC_SESSION_COOKIE, `${OIDC_SESSION_COOKIE}.sig`]);

/** Discovery fields about OpenID Connect, which this server does not offer. */
const OIDC_ONLY_METADATA = [
  'claims_parameter_supported',
  'claims_supported',
  'claim_types_supported',
  'id_token_signing_alg_values_supported',
  'jwks_uri',
  'request_parameter_supported',
  'request_uri_parameter_supported',
  'subject_types_supported',
];

/** A resource indicator names us if it is RESOURCE_URL or a path under it (e.g. `/mcp`). */
export function isOurResource(resourceUrl: string, indicator: string): boolean {
  const ours = URL.parse(resourceUrl);
  const given = URL.parse(indicator);
  if (!ours || !given || given.origin !== ours.origin || given.search || given.hash) return false;
  const base = ours.pathname.replace(/\/+$/, '');
  return given.pathname === base || given.pathname === `${base}/` || given.pathname.startsWith(`${base}/`);
}

/**
 * In development (DEV_LOGIN_ENABLED, refused in production) every client counts as first-party:
 * consent is granted without a prompt. There is no first-party client otherwise.
 */
const isFirstParty = (deps: Deps) => deps.env.DEV_LOGIN_ENABLED;

/**
 * oidc-provider as an OAuth 2.1 authorization server: authorization code with PKCE S256 only,
 * rotating refresh tokens, opaque access tokens for RESOURCE_URL stored in `oauth_records`.
 */
export function createOAuthProvider(deps: Deps, signingKey: string): Provider {
  const { env } = deps;
  const configuration: Configuration = {
    adapter: postgresAdapter(deps),
    // oidc-provider's cookies (interaction, resume) are signed with a subkey of OAUTH_SIGNING_KEY.
    cookies: { keys: [deriveKey(signingKey, 'oidc-provider-cookies').toString('base64url')] },
    // Never used (no ID tokens are issued); given so oidc-provider does not fall back to its public development keys.
    jwks: { keys: [ephemeralSigningKey()] },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'ES256',
    },
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    // http redirect URIs only to loopback hosts, client names without invisible characters.
    extraClientMetadata: { properties: CHECKED_CLIENT_METADATA, validator: validateClientMetadata },
    responseTypes: ['code'],
    // Outbound requests (client metadata documents) follow the rules of callbacks: no private or
    // reserved address unless ALLOW_PRIVATE_DESTINATIONS, checked on the address connected to.
    fetch: (url, options) =>
      outboundFetch(String(url), {
        ...(options as UndiciRequestInit),
        dispatcher: outboundDispatcher(env.ALLOW_PRIVATE_DESTINATIONS),
      }) as unknown as Promise<Response>,
    pkce: { required: () => true },
    allowOmittingSingleRegisteredRedirectUri: false,
    routes: {
      authorization: OAUTH_PATHS.authorization,
      token: OAUTH_PATHS.token,
      registration: OAUTH_PATHS.registration,
      revocation: OAUTH_PATHS.revocation,
      // Not mounted (their features are off); kept under /oauth so nothing claims another path.
      end_session: '/oauth/session/end',
      jwks: '/oauth/jwks',
      userinfo: '/oauth/userinfo',
      pushed_authorization_request: '/oauth/par',
    },
    features: {
      devInteractions: { enabled: false },
      dPoP: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      userinfo: { enabled: false },
      introspection: { enabled: false },
      registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
      // A client_id that is the HTTPS URL of its metadata document (MCP 2026-07-28's preferred
      // registration): fetched (see `fetch` below), validated as a registration is, and cached.
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      revocation: {
        enabled: true,
        // A client revokes only its own tokens (RFC 7009 §2.1); others are ignored, still 200.
        allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId,
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => oneOf?.[0] ?? env.RESOURCE_URL,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (!isOurResource(env.RESOURCE_URL, indicator)) throw new errors.InvalidTarget();
          return {
            scope: OAUTH_SCOPES.join(' '),
            audience: env.RESOURCE_URL,
            accessTokenFormat: 'opaque',
            accessTokenTTL: OAUTH_TTL.AccessToken,
          };
        },
      },
    },
    ttl: {
      AccessToken: OAUTH_TTL.AccessToken,
      AuthorizationCode: OAUTH_TTL.AuthorizationCode,
      RefreshToken: OAUTH_TTL.RefreshToken,
      Grant: OAUTH_TTL.Grant,
      Interaction: OAUTH_TTL.Interaction,
      Session: OAUTH_TTL.Session,
    },
    // Every use of a refresh token returns a new one; presenting a used one revokes the grant.
    rotateRefreshToken: true,
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Tokens outlive the one-request oidc-provider session (see OAUTH_TTL.Session).
    expiresWithSession: () => false,
    findAccount: async (_ctx, id) =>
      (await accountExists(deps.sql, id)) ? { accountId: id, claims: () => ({ sub: id }) } : undefined,
    loadExistingGrant: (ctx) => loadGrant(deps, ctx),
    interactions: { url: (_ctx, interaction) => interactionPath(interaction.uid) },
    clientBasedCORS: (_ctx, origin, client) =>
      client.redirectUris?.some((uri) => URL.parse(uri)?.origin === origin) ?? false,
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.set(PAGE_SECURITY_HEADERS);
      ctx.body = noticePage(
        'This request cannot continue',
        `${out.error}${out.error_description ? `: ${out.error_description}` : ''}`,
      );
    },
  };
  const provider = new Provider(env.ISSUER_URL, configuration);
  provider.proxy = true;
  provider.use(normalizeRequests);
  provider.on('server_error', (_ctx, err) => deps.log.error({ err }, 'oauth server error'));
  return provider;
}

/** The remembered consent (this request's), or in development a grant made on the spot. */
async function loadGrant(deps: Deps, ctx: KoaContextWithOIDC) {
  const { oidc } = ctx;
  const clientId = oidc.client?.clientId;
  const accountId = oidc.session?.accountId;
  const grantId =
    oidc.result?.consent?.grantId ?? (clientId ? oidc.session?.grantIdFor(clientId) : undefined);
  if (grantId) return oidc.provider.Grant.find(grantId);
  if (!clientId || !accountId || !isFirstParty(deps)) return undefined;
  const grant = new oidc.provider.Grant({ clientId, accountId });
  for (const resource of Object.keys(oidc.resourceServers ?? {})) {
    grant.addResourceScope(resource, OAUTH_SCOPES.join(' '));
  }
  await grant.save();
  return grant;
}

/**
 * Before oidc-provider: an authorization request gets our scope rules (scopes.ts) and starts
 * without oidc-provider's session, so who is signed in is decided by our browser session
 * cookie on every request (interaction routes). After it: discovery loses its OpenID Connect
 * fields and lists our scopes.
 */
async function normalizeRequests(ctx: KoaContextWithOIDC, next: () => Promise<void>) {
  const authorization = ctx.path === OAUTH_PATHS.authorization && ctx.method === 'GET';
  if (authorization) {
    const scope = ctx.query.scope;
    ctx.query = { ...ctx.query, scope: authorizationScope(typeof scope === 'string' ? scope : undefined) };
    ctx.req.headers.cookie = withoutCookies(ctx.req.headers.cookie, OIDC_SESSION_COOKIES);
  }
  await next();
  // The browser forgets a previous request's session too, so the steps that follow (the
  // resume after sign-in and after consent) share only the session this request starts.
  if (authorization) ctx.cookies.set(OIDC_SESSION_COOKIE, null, { path: '/' });
  if (ctx.path === OAUTH_PATHS.discovery && ctx.status === 200 && isRecord(ctx.body)) {
    const metadata: Record<string, unknown> = { ...ctx.body, scopes_supported: [...OAUTH_SCOPES] };
    for (const field of OIDC_ONLY_METADATA) delete metadata[field];
    ctx.body = metadata;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function ephemeralSigningKey() {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { ...privateKey.export({ format: 'jwk' }), alg: 'ES256', use: 'sig', kid: 'unused' };
}
