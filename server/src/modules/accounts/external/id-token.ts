import { webcrypto } from 'node:crypto';
import { ProviderUnreachableError } from './errors';

/** A refused ID token; the message is the short reason the callback answers with. */
export class IdTokenError extends Error {
  override name = 'IdTokenError';
}

export type IdTokenClaims = Record<string, unknown> & {
  iss?: unknown;
  aud?: unknown;
  exp?: unknown;
  sub?: unknown;
  nonce?: unknown;
};

export type DecodedJwt = {
  header: { alg?: unknown; kid?: unknown };
  claims: IdTokenClaims;
  /** `<header>.<payload>` as received: what the signature covers. */
  signingInput: string;
  signature: Uint8Array;
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function parsePart(part: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    if (isObject(value)) return value;
  } catch {
    // Falls through to the refusal below.
  }
  throw new IdTokenError('id_token malformed');
}

/** Splits a compact JWS; says nothing about whether it can be trusted. */
export function decodeJwt(token: string): DecodedJwt {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p))) {
    throw new IdTokenError('id_token malformed');
  }
  const [header = '', payload = '', signature = ''] = parts;
  return {
    header: parsePart(header),
    claims: parsePart(payload),
    signingInput: `${header}.${payload}`,
    signature: new Uint8Array(Buffer.from(signature, 'base64url')),
  };
}

export type ClaimChecks = {
  issuers: readonly string[];
  audience: string;
  now: Date;
  /** The nonce sent in the authorization request, when one was. */
  nonce?: string;
};

/** iss, aud, exp (and nonce) of an ID token; the signature is the caller's business. */
export function checkClaims(claims: IdTokenClaims, checks: ClaimChecks): void {
  if (typeof claims.iss !== 'string' || !checks.issuers.includes(claims.iss)) {
    throw new IdTokenError('id_token issuer mismatch');
  }
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audiences.includes(checks.audience)) throw new IdTokenError('id_token audience mismatch');
  if (typeof claims.exp !== 'number' || claims.exp * 1000 <= checks.now.getTime()) {
    throw new IdTokenError('id_token expired');
  }
  if (checks.nonce !== undefined && claims.nonce !== checks.nonce) {
    throw new IdTokenError('id_token nonce mismatch');
  }
  if (typeof claims.sub !== 'string' || claims.sub === '') throw new IdTokenError('id_token without subject');
}

/** `email_verified` arrives as a boolean from some providers and as "true" from others. */
export const isTrue = (value: unknown) => value === true || value === 'true';

type Jwk = webcrypto.JsonWebKey & { kid?: string };

export type JwksOptions = {
  url: string;
  now: () => Date;
  fetch?: typeof fetch;
  /** How long a fetched key set is trusted (providers rotate keys rarely). */
  ttlMs?: number;
  /** An unknown `kid` refetches the set, but not more often than this: junk tokens must not hammer the provider. */
  refetchAfterMs?: number;
};

/**
 * Verifies RS256 tokens against a provider's published key set (WebCrypto, no dependency). The set
 * is cached; a token naming a key we do not know yet refetches it, since that is how a rotation
 * first shows.
 */
export class JwksVerifier {
  private keys = new Map<string, Jwk>();
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: JwksOptions) {
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** The claims of a token whose signature one of the provider's keys made. */
  async verify(token: string): Promise<IdTokenClaims> {
    const jwt = decodeJwt(token);
    // Only the algorithm we expect: the header must not choose how it is checked.
    if (jwt.header.alg !== 'RS256') throw new IdTokenError('id_token algorithm not accepted');
    if (typeof jwt.header.kid !== 'string') throw new IdTokenError('id_token without key id');
    const jwk = await this.key(jwt.header.kid);
    if (!jwk) throw new IdTokenError('id_token signed by an unknown key');
    let key: webcrypto.CryptoKey;
    try {
      key = await webcrypto.subtle.importKey(
        'jwk',
        { kty: jwk.kty, n: jwk.n, e: jwk.e },
        { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
        false,
        ['verify'],
      );
    } catch {
      throw new IdTokenError('id_token signed by an unusable key');
    }
    const data = new TextEncoder().encode(jwt.signingInput);
    const valid = await webcrypto.subtle.verify('RSASSA-PKCS1-v1_5', key, jwt.signature, data);
    if (!valid) throw new IdTokenError('id_token signature invalid');
    return jwt.claims;
  }

  private async key(kid: string): Promise<Jwk | undefined> {
    const age = this.options.now().getTime() - this.fetchedAt;
    const stale = age >= (this.options.ttlMs ?? 60 * 60_000);
    const mayRefetch = age >= (this.options.refetchAfterMs ?? 60_000);
    if (stale || (!this.keys.has(kid) && mayRefetch)) await this.refresh();
    return this.keys.get(kid);
  }

  private async refresh(): Promise<void> {
    let body: unknown;
    try {
      const response = await this.fetch(this.options.url, { headers: { accept: 'application/json' } });
      if (!response.ok) throw new Error(`status ${response.status}`);
      body = await response.json();
    } catch (cause) {
      throw new ProviderUnreachableError('provider keys unavailable', { cause });
    }
    const keys = isObject(body) && Array.isArray(body.keys) ? (body.keys as unknown[]) : [];
    this.keys = new Map(
      keys
        .filter((k): k is Jwk => isObject(k) && k.kty === 'RSA' && typeof k.kid === 'string')
        .map((k) => [k.kid as string, k]),
    );
    this.fetchedAt = this.options.now().getTime();
  }
}
