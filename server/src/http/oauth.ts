import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps';
import { BrowserSessions } from '../oauth/browser-session';
import { createOAuthProvider, OAUTH_PATHS } from '../oauth/provider';
import { resolveSigningKey } from '../signing-key';
import { registerInteractions } from './oauth-interaction';
import { registerProtectedResourceMetadata } from './protected-resource';

/**
 * The OAuth 2.1 authorization server on the authorization process: oidc-provider answers the
 * specification's paths, our pages run its interactions (sign-in, consent).
 */
export async function registerOAuth(app: FastifyInstance, deps: Deps): Promise<void> {
  const signingKey = await resolveSigningKey(deps.env);
  const provider = createOAuthProvider(deps, signingKey);
  const sessions = new BrowserSessions(deps.sql, deps.env, signingKey);
  // First, so it runs before every OAuth route registered below.
  app.addHook('onRequest', async (request) => forwardTrustedOnly(request));
  registerProtectedResourceMetadata(app, deps);

  const callback = provider.callback();
  const handOver = async (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack();
    await callback(request.raw, reply.raw);
  };
  await app.register(async (scope) => {
    // oidc-provider reads request bodies itself: nothing here may consume them first.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.get(OAUTH_PATHS.discovery, handOver);
    scope.get(OAUTH_PATHS.authorization, handOver);
    scope.get(`${OAUTH_PATHS.authorization}/:uid`, handOver);
    scope.post(OAUTH_PATHS.registration, handOver);
    for (const path of [OAUTH_PATHS.token, OAUTH_PATHS.revocation, OAUTH_PATHS.discovery]) {
      scope.options(path, handOver);
    }
    scope.post(OAUTH_PATHS.token, handOver);
    scope.post(OAUTH_PATHS.revocation, handOver);
  });
  await registerInteractions(app, deps, provider, sessions);
}

/**
 * oidc-provider (Koa with `proxy` on) builds its endpoint URLs, discovery included, from
 * X-Forwarded-Host and -Proto, and reads the client address from X-Forwarded-For, whoever sent
 * them. Before it sees a request, those headers are replaced by what Fastify concluded under
 * TRUST_PROXY: a trusted proxy's values, else the request's own Host, scheme and peer address.
 */
function forwardTrustedOnly(request: FastifyRequest): void {
  const { headers } = request.raw;
  const host = request.host;
  const protocol = request.protocol;
  const ip = request.ip;
  headers['x-forwarded-host'] = host;
  headers['x-forwarded-proto'] = protocol;
  headers['x-forwarded-for'] = ip;
  delete headers.forwarded;
}
