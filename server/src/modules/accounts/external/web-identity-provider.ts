import { Google } from 'arctic';
import { checkClaims, decodeJwt, IdTokenError, isTrue } from './id-token';
import type { ExternalProfile, ExternalProvider } from './provider';

const ISSUERS = ['accounts.google.com', 'https://accounts.google.com'];

/**
 * idp_b, the web identity provider: OpenID Connect with PKCE. The ID token comes straight from
 * its token endpoint over TLS to us, so (as OIDC Core 3.1.3.7 allows) its claims are checked
 * without fetching the provider's keys.
 */
export function webIdentityProvider(
  clientId: string,
  clientSecret: string,
  redirectUri: string,
  now: () => Date,
): ExternalProvider {
  const client = new Google(clientId, clientSecret, redirectUri);
  return {
    idp: 'idp_b',
    authorizationUrl: (state, flow) =>
      client.createAuthorizationURL(state, flow.codeVerifier, ['openid', 'email', 'profile']),
    async profile(code, flow): Promise<ExternalProfile> {
      const tokens = await client.validateAuthorizationCode(code, flow.codeVerifier);
      if (!('id_token' in tokens.data)) throw new IdTokenError('id_token missing');
      const { claims } = decodeJwt(tokens.idToken());
      checkClaims(claims, { issuers: ISSUERS, audience: clientId, now: now() });
      return {
        providerUserId: String(claims.sub),
        email: typeof claims.email === 'string' ? claims.email : null,
        emailVerified: isTrue(claims.email_verified),
        name: typeof claims.name === 'string' ? claims.name : null,
      };
    },
  };
}
