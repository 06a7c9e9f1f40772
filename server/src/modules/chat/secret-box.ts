import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Secrets of chat apps kept at rest (bot tokens): AES-256-GCM under a key derived for that one
 * use, stored as base64(iv | tag | ciphertext).
 */

/** A 32-byte key for one use, from a configured secret (HKDF-SHA256): one secret, several keys. */
export const deriveKey = (secret: string, label: string) =>
  Buffer.from(hkdfSync('sha256', secret, '', label, 32));

export function seal(key: Buffer, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

export function unseal(key: Buffer, stored: string): string {
  const bytes = Buffer.from(stored, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}

/** A keyed digest of a value (base64url HMAC-SHA256), e.g. a per-organization webhook secret. */
export const keyedDigest = (key: Buffer, value: string) =>
  createHmac('sha256', key).update(value).digest('base64url');
