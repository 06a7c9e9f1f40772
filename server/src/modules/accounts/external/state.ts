import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

export const IDPS = ['idp_a', 'idp_b', 'idp_c'] as const;
export type Idp = (typeof IDPS)[number];

/**
 * The only places a sign-in may return to besides the dashboard: an OAuth interaction of the
 * authorization process (its sign-in page links here). Anything else would be an open redirect.
 */
export const RETURN_TO = /^\/oauth\/interaction\/[A-Za-z0-9_-]{1,128}$/;

/**
 * What the dashboard may pass to be handed back with the session (`#…&client_state=`): a nonce it
 * keeps, so it signs in only with a session from a flow this browser started (no login CSRF).
 */
export const CLIENT_STATE = /^[A-Za-z0-9_-]{16,128}$/;

/** How long a started sign-in may take at the provider. */
export const STATE_TTL_MS = 10 * 60_000;

const ZState = z.object({
  idp: z.enum(IDPS),
  nonce: z.string().min(16),
  org_id: z.uuid().optional(),
  /** An OAuth authorization in progress to go back to (see RETURN_TO), instead of the dashboard. */
  return_to: z.string().optional(),
  /** The dashboard's nonce for this sign-in, handed back in the fragment (see CLIENT_STATE). */
  client_state: z.string().optional(),
  /** Seconds since the epoch, as in a JWT. */
  exp: z.number().int(),
});
export type SignInState = z.infer<typeof ZState>;

const mac = (key: string, data: string) => createHmac('sha256', key).update(data).digest();

/** A fresh nonce: binds the state to the browser that started the flow (through a cookie). */
export const newNonce = () => randomBytes(32).toString('base64url');

/**
 * `<payload>.<mac>`: the state travels through the provider and back, so it carries its own proof
 * of origin and expiry instead of a database row per started sign-in.
 */
export function signState(key: string, state: SignInState): string {
  const payload = Buffer.from(JSON.stringify(state)).toString('base64url');
  return `${payload}.${mac(key, payload).toString('base64url')}`;
}

/** The state if its MAC is ours and it has not expired; null for anything else. */
export function verifyState(key: string, token: string, now: Date): SignInState | null {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return null;
  const given = Buffer.from(signature, 'base64url');
  const expected = mac(key, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const parsed = ZState.safeParse(decoded);
  if (!parsed.success || parsed.data.exp * 1000 <= now.getTime()) return null;
  return parsed.data;
}

/**
 * The PKCE code verifier of a flow, derived from its nonce with the key: it never travels in a
 * URL or a cookie, yet the callback can recompute it (43 base64url characters, as RFC 7636 asks).
 */
export const codeVerifierFor = (key: string, nonce: string) =>
  mac(key, `pkce:${nonce}`).toString('base64url');

/** Constant-time comparison of two nonces (the cookie's and the state's). */
export function sameNonce(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
