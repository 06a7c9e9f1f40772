import { createHmac, timingSafeEqual } from 'node:crypto';

/** Slack's replay window: a request signed longer ago than this (or this far ahead) is refused. */
export const REPLAY_WINDOW_SECONDS = 5 * 60;

/**
 * Slack's request signature (api.slack.com/authentication/verifying-requests-from-slack):
 * `v0=` + hex HMAC-SHA256 of `v0:<X-Slack-Request-Timestamp>:<raw body>` with the signing
 * secret, compared in constant time, and a timestamp within the replay window of now.
 */
export function verifySlackSignature(
  signingSecret: string,
  headers: { timestamp: unknown; signature: unknown },
  rawBody: string,
  nowSeconds = Date.now() / 1000,
): 'ok' | 'stale' | 'mismatch' {
  const { timestamp, signature } = headers;
  if (typeof timestamp !== 'string' || !/^\d{1,12}$/.test(timestamp) || typeof signature !== 'string') {
    return 'mismatch';
  }
  if (Math.abs(nowSeconds - Number(timestamp)) > REPLAY_WINDOW_SECONDS) return 'stale';
  const expected = Buffer.from(
    `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`,
  );
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected) ? 'ok' : 'mismatch';
}
