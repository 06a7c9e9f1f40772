import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { codeVerifierFor, newNonce, type SignInState, sameNonce, signState, verifyState } from './state';

const key = 'k'.repeat(32);
const now = new Date('2030-01-01T00:00:00Z');
const state = (over: Partial<SignInState> = {}): SignInState => ({
  idp: 'idp_a',
  nonce: newNonce(),
  org_id: randomUUID(),
  exp: now.getTime() / 1000 + 600,
  ...over,
});

describe('signed state', () => {
  it('round-trips its payload', () => {
    const payload = state();
    expect(verifyState(key, signState(key, payload), now)).toEqual(payload);
    const { org_id: _, ...withoutOrg } = payload;
    expect(verifyState(key, signState(key, withoutOrg), now)).toEqual(withoutOrg);
  });

  it('refuses another key, a changed payload, a changed or missing signature', () => {
    const token = signState(key, state());
    const [payload, signature] = token.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ ...state(), idp: 'idp_b' })).toString('base64url');
    expect(verifyState('x'.repeat(32), token, now)).toBeNull();
    expect(verifyState(key, `${forged}.${signature}`, now)).toBeNull();
    expect(verifyState(key, `${payload}.${signature.slice(0, -2)}AA`, now)).toBeNull();
    expect(verifyState(key, payload, now)).toBeNull();
    expect(verifyState(key, `${token}.extra`, now)).toBeNull();
    expect(verifyState(key, '', now)).toBeNull();
  });

  it('refuses a well-signed payload of the wrong shape', () => {
    const bad = { idp: 'idp_z', nonce: 'short', exp: 'later' } as unknown as SignInState;
    expect(verifyState(key, signState(key, bad), now)).toBeNull();
  });

  it('expires at exp', () => {
    const token = signState(key, state());
    expect(verifyState(key, token, new Date(now.getTime() + 599_000))).not.toBeNull();
    expect(verifyState(key, token, new Date(now.getTime() + 600_000))).toBeNull();
  });
});

describe('flow secrets', () => {
  it('derives a PKCE verifier of RFC 7636 length, stable per nonce and key', () => {
    const nonce = newNonce();
    const verifier = codeVerifierFor(key, nonce);
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(codeVerifierFor(key, nonce)).toBe(verifier);
    expect(codeVerifierFor(key, newNonce())).not.toBe(verifier);
    expect(codeVerifierFor('y'.repeat(32), nonce)).not.toBe(verifier);
  });

  it('compares nonces exactly', () => {
    const nonce = newNonce();
    expect(sameNonce(nonce, nonce)).toBe(true);
    expect(sameNonce(nonce, `${nonce}x`)).toBe(false);
    expect(sameNonce(nonce, newNonce())).toBe(false);
  });
});
