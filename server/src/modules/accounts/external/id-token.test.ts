import { createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkClaims, decodeJwt, IdTokenError, JwksVerifier } from './id-token';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const rsa = () => generateKeyPairSync('rsa', { modulusLength: 2048 });

function sign(privateKey: KeyObject, header: Record<string, unknown>, claims: Record<string, unknown>) {
  const input = `${b64({ typ: 'JWT', ...header })}.${b64(claims)}`;
  const signature = createSign('RSA-SHA256').update(input).sign(privateKey).toString('base64url');
  return `${input}.${signature}`;
}

const now = new Date('2030-01-01T00:00:00Z');
const seconds = now.getTime() / 1000;
const claims = { iss: 'https://issuer.test', aud: 'client-1', sub: 'account-1', exp: seconds + 300 };
const checks = { issuers: ['https://issuer.test'], audience: 'client-1', now };

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(IdTokenError);
    return (error as Error).message;
  }
  throw new Error('not refused');
};

describe('decodeJwt', () => {
  it('splits a compact token', () => {
    const { privateKey } = rsa();
    const token = sign(privateKey, { alg: 'RS256', kid: 'a' }, claims);
    const jwt = decodeJwt(token);
    expect(jwt.header).toMatchObject({ alg: 'RS256', kid: 'a' });
    expect(jwt.claims).toEqual(claims);
    expect(jwt.signingInput).toBe(token.split('.').slice(0, 2).join('.'));
  });

  it('refuses what is not three base64url parts of JSON objects', () => {
    for (const token of [
      '',
      'a.b',
      'a.b.c.d',
      `${b64({})}.${b64([1])}.x`,
      `${b64({})}.%%.x`,
      'e30.bm90anNvbg.x',
    ]) {
      expect(refusal(() => decodeJwt(token))).toBe('id_token malformed');
    }
  });
});

describe('checkClaims', () => {
  it('accepts matching claims, an audience list and a matching nonce', () => {
    expect(() => checkClaims(claims, checks)).not.toThrow();
    expect(() => checkClaims({ ...claims, aud: ['other', 'client-1'] }, checks)).not.toThrow();
    expect(() => checkClaims({ ...claims, nonce: 'n' }, { ...checks, nonce: 'n' })).not.toThrow();
  });

  it('refuses the wrong issuer, audience, an expired token, a nonce mismatch, no subject', () => {
    expect(refusal(() => checkClaims({ ...claims, iss: 'https://evil.test' }, checks))).toMatch(/issuer/);
    expect(refusal(() => checkClaims({ ...claims, aud: 'client-2' }, checks))).toMatch(/audience/);
    expect(refusal(() => checkClaims({ ...claims, exp: seconds }, checks))).toBe('id_token expired');
    expect(refusal(() => checkClaims({ ...claims, exp: String(seconds + 60) }, checks))).toBe(
      'id_token expired',
    );
    expect(refusal(() => checkClaims(claims, { ...checks, nonce: 'n' }))).toMatch(/nonce/);
    expect(refusal(() => checkClaims({ ...claims, nonce: 'm' }, { ...checks, nonce: 'n' }))).toMatch(/nonce/);
    expect(refusal(() => checkClaims({ ...claims, sub: '' }, checks))).toMatch(/subject/);
  });
});

describe('JwksVerifier', () => {
  const current = rsa();
  const rotated = rsa();
  const jwk = (key: KeyObject, kid: string) => ({
    ...key.export({ format: 'jwk' }),
    kid,
    alg: 'RS256',
    use: 'sig',
  });

  function verifier(published: () => unknown[], clock = { t: now.getTime() }) {
    let fetches = 0;
    const keys = new JwksVerifier({
      url: 'https://issuer.test/keys',
      now: () => new Date(clock.t),
      fetch: async () => {
        fetches++;
        return Response.json({ keys: published() });
      },
    });
    return { keys, fetches: () => fetches, clock };
  }

  it('verifies a token signed by a published key and caches the set', async () => {
    const { keys, fetches } = verifier(() => [jwk(current.publicKey, 'k1')]);
    const token = sign(current.privateKey, { alg: 'RS256', kid: 'k1' }, claims);
    expect(await keys.verify(token)).toEqual(claims);
    expect(await keys.verify(token)).toEqual(claims);
    expect(fetches()).toBe(1);
  });

  it('refuses a signature by another key under a known kid, and a tampered payload', async () => {
    const { keys } = verifier(() => [jwk(current.publicKey, 'k1')]);
    const forged = sign(rotated.privateKey, { alg: 'RS256', kid: 'k1' }, claims);
    await expect(keys.verify(forged)).rejects.toThrow('id_token signature invalid');
    const [h, , s] = sign(current.privateKey, { alg: 'RS256', kid: 'k1' }, claims).split('.');
    await expect(keys.verify(`${h}.${b64({ ...claims, sub: 'someone-else' })}.${s}`)).rejects.toThrow(
      'id_token signature invalid',
    );
  });

  it('refuses other algorithms and tokens without a key id', async () => {
    const { keys } = verifier(() => [jwk(current.publicKey, 'k1')]);
    for (const header of [{ alg: 'none', kid: 'k1' }, { alg: 'HS256', kid: 'k1' }, { alg: 'RS256' }]) {
      await expect(keys.verify(sign(current.privateKey, header, claims))).rejects.toBeInstanceOf(
        IdTokenError,
      );
    }
  });

  it('refetches on an unknown kid (a rotation), at most once a minute', async () => {
    let published = [jwk(current.publicKey, 'k1')];
    const { keys, fetches, clock } = verifier(() => published);
    await keys.verify(sign(current.privateKey, { alg: 'RS256', kid: 'k1' }, claims));
    const next = sign(rotated.privateKey, { alg: 'RS256', kid: 'k2' }, claims);
    clock.t += 61_000;
    published = [jwk(current.publicKey, 'k1'), jwk(rotated.publicKey, 'k2')];
    expect(await keys.verify(next)).toEqual(claims);
    expect(fetches()).toBe(2);

    const unknown = sign(rotated.privateKey, { alg: 'RS256', kid: 'k3' }, claims);
    await expect(keys.verify(unknown)).rejects.toThrow('id_token signed by an unknown key');
    await expect(keys.verify(unknown)).rejects.toThrow('id_token signed by an unknown key');
    expect(fetches()).toBe(2);
    clock.t += 61_000;
    await expect(keys.verify(unknown)).rejects.toThrow('id_token signed by an unknown key');
    expect(fetches()).toBe(3);
  });

  it('says the provider is unreachable when its keys cannot be fetched', async () => {
    const keys = new JwksVerifier({
      url: 'https://issuer.test/keys',
      now: () => now,
      fetch: async () => new Response('down', { status: 503 }),
    });
    const token = sign(current.privateKey, { alg: 'RS256', kid: 'k1' }, claims);
    await expect(keys.verify(token)).rejects.toThrow('provider keys unavailable');
  });
});
