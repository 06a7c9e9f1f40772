import { readFile } from 'node:fs/promises';

/** The claims of a decision receipt (server/src/modules/receipts/receipts.ts). */
export type ReceiptClaims = {
  iss: string;
  sub: string;
  iat: number;
  exp: number;
  org_id: string;
  item_id: string;
  action_digest: string | null;
  outcome: string;
  response_digest: string | null;
  decided_by: { type: string; id: string | null };
  answered_via: string | null;
  auth_method: string;
  /** How the person last proved presence (passkey, magic_link, …), or the credential's kind. */
  amr?: string[];
  /** When they did (seconds since the epoch); null for credentials other than a session. */
  auth_time?: number | null;
  decided_at: string;
};

type Jwk = { kty?: string; crv?: string; x?: string; kid?: string };
export class ReceiptError extends Error {}

const part = (text: string, what: string) => {
  try {
    return JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new ReceiptError(`the receipt's ${what} is not base64url JSON`);
  }
};

/** The organization's keys, from a file or a URL; none reachable is a refusal, never a pass. */
async function loadKeys(source: string): Promise<Jwk[]> {
  let text: string;
  try {
    if (/^https?:\/\//.test(source)) {
      const res = await fetch(source);
      if (!res.ok) throw new Error(`answered ${res.status}`);
      text = await res.text();
    } else {
      text = await readFile(source, 'utf8');
    }
    const { keys } = JSON.parse(text) as { keys?: Jwk[] };
    if (!Array.isArray(keys)) throw new Error('no "keys" array');
    return keys;
  } catch (error) {
    throw new ReceiptError(
      `cannot read the keys at ${source} (${(error as Error).message}): refusing to verify`,
    );
  }
}

/**
 * Verifies a compact JWS receipt with Web Crypto (Ed25519): the header's kid among the
 * organization's published keys, the signature over header.payload, the type, and the expiry
 * (`now` in seconds). `keysFrom(orgId)` names where the keys are.
 */
export async function verifyReceipt(
  jws: string,
  keysFrom: (orgId: string) => string,
  now = Math.floor(Date.now() / 1000),
): Promise<{ claims: ReceiptClaims; kid: string; expired: boolean }> {
  const [header64, payload64, signature64, ...rest] = jws.trim().split('.');
  if (!header64 || !payload64 || !signature64 || rest.length) throw new ReceiptError('not a compact JWS');
  const header = part(header64, 'header');
  const claims = part(payload64, 'payload') as ReceiptClaims;
  if (header.alg !== 'EdDSA') throw new ReceiptError(`unexpected algorithm ${String(header.alg)}`);
  if (header.typ !== 'beckon-receipt+jwt') throw new ReceiptError('not a Beckon receipt (typ)');
  if (typeof claims.org_id !== 'string') throw new ReceiptError('the receipt names no organization');
  const kid = String(header.kid ?? '');
  const jwk = (await loadKeys(keysFrom(claims.org_id))).find((k) => k.kid === kid);
  if (!jwk) throw new ReceiptError(`no published key ${kid} for organization ${claims.org_id}`);
  const key = await crypto.subtle.importKey(
    'jwk',
    { kty: jwk.kty, crv: jwk.crv, x: jwk.x },
    'Ed25519',
    false,
    ['verify'],
  );
  const valid = await crypto.subtle.verify(
    'Ed25519',
    key,
    Buffer.from(signature64, 'base64url'),
    new TextEncoder().encode(`${header64}.${payload64}`),
  );
  if (!valid)
    throw new ReceiptError(
      'the signature does not verify: the receipt was changed or not signed by this key',
    );
  return { claims, kid, expired: claims.exp <= now };
}
