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
