import { createPublicKey, verify } from 'node:crypto';

/** The DER prefix of an Ed25519 SubjectPublicKeyInfo: Discord gives the raw 32-byte key, in hex. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** How far an interaction's timestamp may be from now: older ones are replays. */
export const REPLAY_WINDOW_SECONDS = 5 * 60;

/**
 * Discord's check of an interaction: `X-Signature-Ed25519` is the application's Ed25519
 * signature of `X-Signature-Timestamp` followed by the raw body. A timestamp outside the replay
 * window is refused even when the signature holds.
 */
export function verifyInteraction(
  publicKeyHex: string,
  headers: { signature: unknown; timestamp: unknown },
  rawBody: string,
  now: Date,
): 'ok' | 'invalid' | 'stale' {
  const { signature, timestamp } = headers;
  if (typeof signature !== 'string' || typeof timestamp !== 'string') return 'invalid';
  if (!/^[0-9a-f]{128}$/i.test(signature) || !/^\d{1,12}$/.test(timestamp)) return 'invalid';
  const key = createPublicKey({
    key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(publicKeyHex, 'hex')]),
    format: 'der',
    type: 'spki',
  });
  const signed = Buffer.from(timestamp + rawBody);
  if (!verify(null, signed, key, Buffer.from(signature, 'hex'))) return 'invalid';
  const age = Math.abs(now.getTime() / 1000 - Number(timestamp));
  return age > REPLAY_WINDOW_SECONDS ? 'stale' : 'ok';
}
