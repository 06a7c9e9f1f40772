import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { REPLAY_WINDOW_SECONDS, verifySlackSignature } from './request-signature';

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const BODY = 'payload=%7B%22type%22%3A%22block_actions%22%7D';
const NOW = 1_800_000_000;

const sign = (timestamp: number | string, body = BODY, secret = SECRET) =>
  `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
const verify = (timestamp: unknown, signature: unknown, body = BODY, now = NOW) =>
  verifySlackSignature(SECRET, { timestamp, signature }, body, now);

describe("Slack's request signature", () => {
  it('accepts the signature Slack computes, within the replay window either way', () => {
    expect(verify(String(NOW), sign(NOW))).toBe('ok');
    const edge = NOW - REPLAY_WINDOW_SECONDS;
    expect(verify(String(edge), sign(edge))).toBe('ok');
    expect(verify(String(NOW + REPLAY_WINDOW_SECONDS), sign(NOW + REPLAY_WINDOW_SECONDS))).toBe('ok');
  });

  it('refuses a timestamp outside the window, even correctly signed', () => {
    const stale = NOW - REPLAY_WINDOW_SECONDS - 1;
    expect(verify(String(stale), sign(stale))).toBe('stale');
    const future = NOW + REPLAY_WINDOW_SECONDS + 1;
    expect(verify(String(future), sign(future))).toBe('stale');
  });

  it('refuses another secret, another body, another timestamp, or a malformed header', () => {
    expect(verify(String(NOW), sign(NOW, BODY, 'another-secret'))).toBe('mismatch');
    expect(verify(String(NOW), sign(NOW), `${BODY}x`)).toBe('mismatch');
    expect(verify(String(NOW - 1), sign(NOW))).toBe('mismatch');
    expect(verify(String(NOW), sign(NOW).slice(0, -1))).toBe('mismatch');
    expect(verify(String(NOW), sign(NOW).replace('v0=', 'v1='))).toBe('mismatch');
    expect(verify(undefined, sign(NOW))).toBe('mismatch');
    expect(verify(`${NOW}.5`, sign(`${NOW}.5`))).toBe('mismatch');
    expect(verify(String(NOW), undefined)).toBe('mismatch');
    expect(verify(String(NOW), ['a', 'b'])).toBe('mismatch');
  });
});
