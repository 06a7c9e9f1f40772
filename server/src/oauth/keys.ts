import { createHmac } from 'node:crypto';

/**
 * One subkey of OAUTH_SIGNING_KEY per use (browser session cookie, oidc-provider's cookies), so
 * a signature made for one purpose never verifies for another. Changing the key changes them all.
 */
export function deriveKey(signingKey: string, purpose: string): Buffer {
  return createHmac('sha256', signingKey).update(`beckon/${purpose}`).digest();
}
