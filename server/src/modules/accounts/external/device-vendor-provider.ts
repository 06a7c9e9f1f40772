import { createPrivateKey, type KeyObject } from 'node:crypto';
import { Apple } from 'arctic';
import { ConfigError } from '../../../env';
import { checkClaims, IdTokenError, isTrue, JwksVerifier } from './id-token';
import type { ExternalProfile, ExternalProvider } from './provider';

const ISSUER = 'https://appleid.apple.com';
const KEYS_URL = 'https://appleid.apple.com/auth/keys';

export type DeviceVendorConfig = {
  clientId: string;
  teamId: string;
  keyId: string;
  /** The PEM text of the provider-issued key (PKCS#8 or SEC1). */
  privateKey: string;
};

/**
 * PKCS#8 bytes as arctic wants them; env files often carry the PEM with literal "\n". Checked at
 * boot: a wrong key would otherwise only show at the first sign-in.
 */
export function pkcs8FromPem(pem: string): Uint8Array {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem.replace(/\\n/g, '\n'));
  } catch {
    throw new ConfigError('invalid configuration:\n  IDP_C_PRIVATE_KEY: not a readable PEM private key');
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new ConfigError('invalid configuration:\n  IDP_C_PRIVATE_KEY: must be an EC P-256 key');
  }
  return new Uint8Array(key.export({ format: 'der', type: 'pkcs8' }));
}

/**
 * idp_c, the device-vendor provider: the client secret is a short-lived ES256 JWT arctic signs
 * with our key, the callback is a cross-site form POST, and the ID token is verified against the
 * provider's published keys (it reaches us through the token endpoint, but the nonce it carries
 * is only worth checking on a token whose signature holds).
 */
export function deviceVendorProvider(
  config: DeviceVendorConfig,
  redirectUri: string,
  now: () => Date,
): ExternalProvider {
  const client = new Apple(
    config.clientId,
    config.teamId,
    config.keyId,
    pkcs8FromPem(config.privateKey),
    redirectUri,
  );
  const keys = new JwksVerifier({ url: KEYS_URL, now });
  return {
    idp: 'idp_c',
    authorizationUrl(state, flow) {
      const url = client.createAuthorizationURL(state, ['name', 'email']);
      // Asking for name or email obliges the provider to answer with a form POST.
      url.searchParams.set('response_mode', 'form_post');
      url.searchParams.set('nonce', flow.nonce);
      return url;
    },
    async profile(code, flow, callback): Promise<ExternalProfile> {
      const tokens = await client.validateAuthorizationCode(code);
      if (!('id_token' in tokens.data)) throw new IdTokenError('id_token missing');
      const claims = await keys.verify(tokens.idToken());
      checkClaims(claims, { issuers: [ISSUER], audience: config.clientId, now: now(), nonce: flow.nonce });
      return {
        providerUserId: String(claims.sub),
        email: typeof claims.email === 'string' ? claims.email : null,
        emailVerified: isTrue(claims.email_verified),
        name: nameFromCallback(callback.user),
      };
    },
  };
}

/**
 * The provider sends the person's name only on the first authorization, in the `user` form field,
 * and not inside the ID token. It is unsigned: good enough for a display name, nothing more.
 */
export function nameFromCallback(user: string | undefined): string | null {
  if (!user) return null;
  try {
    const parsed = JSON.parse(user) as { name?: { firstName?: unknown; lastName?: unknown } };
    const parts = [parsed.name?.firstName, parsed.name?.lastName].filter(
      (p): p is string => typeof p === 'string' && p.trim() !== '',
    );
    return parts.length ? parts.join(' ').slice(0, 200) : null;
  } catch {
    return null;
  }
}
