import { hash } from 'node:crypto';
import { encodeBase64urlNoPadding } from '@oslojs/encoding';

/** A new opaque credential: 32 random bytes, base64url. Only its hash is ever stored. */
export function generateToken(): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return encodeBase64urlNoPadding(bytes);
}

/**
 * The stored form of a token: hex SHA-256 of its text (what @oslojs/crypto's sha256 gives, as
 * the Lucia guide does it), computed by Node's native one-shot hash: it runs on every
 * authenticated request, where the pure-JavaScript one cost several microseconds.
 */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/** `bk_<organization>_<secret>`: the organization's id (16 bytes) and 32 random bytes, base64url. */
const ORG_TOKEN = /^bk_([A-Za-z0-9_-]{22})_([A-Za-z0-9_-]{43})$/;

/**
 * A new credential that names its organization (API keys, inbound webhook tokens), so it is found
 * by organization and hash: routable to one node of a database distributed by organization. The
 * whole text is the secret; its hash is what is stored, as for every token.
 */
export function generateOrgToken(orgId: string): string {
  return `bk_${encodeBase64urlNoPadding(Buffer.from(orgId.replaceAll('-', ''), 'hex'))}_${generateToken()}`;
}

/** The organization a token names (generateOrgToken), or null for a token that names none. */
export function orgOfToken(token: string): string | null {
  const match = ORG_TOKEN.exec(token);
  if (!match?.[1]) return null;
  const hex = Buffer.from(match[1], 'base64url').toString('hex');
  if (hex.length !== 32) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
