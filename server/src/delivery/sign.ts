import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';

export type SignDeliveryInput = {
  secret: string;
  /** The exact bytes that will be sent; signing a re-serialised copy would not verify. */
  body: string;
  deliveryId: string;
  timestamp: Date;
};

/**
 * Headers that let a receiver authenticate a delivery, in two flavours:
 * - `x-service-signature: sha256=<hex>`: HMAC-SHA256 of the raw body, the simplest to verify by hand;
 * - Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`), so receivers can use
 *   the off-the-shelf verifiers, which also bind the id and timestamp and so resist replays.
 */
export function signDelivery({
  secret,
  body,
  deliveryId,
  timestamp,
}: SignDeliveryInput): Record<string, string> {
  const unixSeconds = Math.floor(timestamp.getTime() / 1000).toString();
  return {
    'x-service-signature': bodySignature(secret, body),
    'x-service-delivery': deliveryId,
    'webhook-id': deliveryId,
    'webhook-timestamp': unixSeconds,
    'webhook-signature': standardWebhooksSignature(secret, `${deliveryId}.${unixSeconds}.${body}`),
  };
}

/**
 * Checks an `x-service-signature` header against the raw request body, in constant time.
 * Receivers must pass the body exactly as received, before any JSON parsing.
 */
export function verifySignature(secret: string, body: string, header: string | null | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(bodySignature(secret, body));
  const actual = Buffer.from(header);
  // timingSafeEqual throws on a length mismatch; the length of a well-formed signature is public anyway.
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** HMAC keys by secret: turning the secret into a key on every call was 7 % of a delivery's CPU. */
const keys = new Map<string, KeyObject>();
const MAX_KEYS = 1000;

/** The secret's UTF-8 bytes as an HMAC key (both signatures use the same key). */
function hmacKey(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= MAX_KEYS) keys.clear();
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    keys.set(secret, key);
  }
  return key;
}

function bodySignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', hmacKey(secret)).update(body, 'utf8').digest('hex')}`;
}

/**
 * The Standard Webhooks spec keys the HMAC with the base64-decoded part of a `whsec_...` secret. Our
 * secrets are plain strings, not `whsec_` base64, so the key is the secret's UTF-8 bytes: receivers
 * using a Standard Webhooks library must hand it those bytes (e.g. `whsec_` + base64(secret)).
 */
function standardWebhooksSignature(secret: string, signedContent: string): string {
  return `v1,${createHmac('sha256', hmacKey(secret)).update(signedContent, 'utf8').digest('base64')}`;
}
