import type { Idp } from './state';
import { STATE_TTL_MS } from './state';

/**
 * The cookie that binds a started sign-in to the browser that started it (login CSRF): it holds
 * the state's nonce, is scoped to the provider's routes and lives as long as the state.
 */
export const flowCookieName = (idp: Idp) => `beckon_flow_${idp}`;

/**
 * idp_c comes back with a cross-site form POST, which carries only SameSite=None cookies (and
 * those must be Secure; browsers accept that on http://localhost). The others return with a
 * top-level GET, for which Lax suffices.
 */
function attributes(idp: Idp, secureOrigin: boolean, maxAgeSeconds: number): string {
  const sameSite =
    idp === 'idp_c' ? 'SameSite=None; Secure' : `SameSite=Lax${secureOrigin ? '; Secure' : ''}`;
  return `Path=/auth/oauth/${idp}; Max-Age=${maxAgeSeconds}; HttpOnly; ${sameSite}`;
}

export const setFlowCookie = (idp: Idp, nonce: string, secureOrigin: boolean) =>
  `${flowCookieName(idp)}=${nonce}; ${attributes(idp, secureOrigin, STATE_TTL_MS / 1000)}`;

export const clearFlowCookie = (idp: Idp, secureOrigin: boolean) =>
  `${flowCookieName(idp)}=; ${attributes(idp, secureOrigin, 0)}`;

/** One cookie's value from a Cookie request header (RFC 6265 §5.4 pairs, first match wins). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim() || undefined;
  }
  return undefined;
}
