import { errors } from 'oidc-provider';

/**
 * Our rules for what a client registers (dynamic registration is open to anyone), on top of
 * oidc-provider's: oidc-provider runs `validateClientMetadata` for each of these properties of
 * every client it builds, registered now or read back from storage.
 */
export const CHECKED_CLIENT_METADATA = ['client_name', 'redirect_uris'];

/** Hosts an http redirect URI may name: the machine the client runs on (RFC 8252 §7.3). */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/**
 * Control characters, bidirectional and other invisible format characters (Unicode Cc and Cf,
 * line and paragraph separators): in a name shown on the consent page they could make it read as
 * another application's (a right-to-left override turning "moc.elppa" into "apple.com").
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

/**
 * Refuses `http:` redirect URIs to any host but a loopback one (a code sent in clear over the
 * network, readable on the way), and client names with control or bidirectional characters.
 * Types are oidc-provider's to check afterwards; only strings are looked at here.
 */
export function validateClientMetadata(_ctx: unknown, key: string, value: unknown): void {
  if (key === 'client_name' && typeof value === 'string' && INVISIBLE.test(value)) {
    throw new errors.InvalidClientMetadata(
      'client_name must not contain control or bidirectional characters',
    );
  }
  if (key === 'redirect_uris' && Array.isArray(value)) {
    for (const uri of value) {
      const url = typeof uri === 'string' ? URL.parse(uri) : null;
      if (url?.protocol === 'http:' && !LOOPBACK.test(url.hostname)) {
        // A description starting with "redirect_uris" makes it RFC 7591's invalid_redirect_uri.
        throw new errors.InvalidClientMetadata(
          'redirect_uris using http must name a loopback host (use https)',
        );
      }
    }
  }
}
