import { sha256 } from '@oslojs/crypto/sha2';
import { encodeHexLowerCase } from '@oslojs/encoding';
import { describe, expect, it } from 'vitest';
import { generateToken, hashToken } from './tokens';

describe('tokens', () => {
  it('generates 32 random bytes as base64url, never twice the same', () => {
    const token = generateToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(generateToken()).not.toBe(token);
  });

  it("hashes a token to the hex SHA-256 of its text, as @oslojs/crypto's sha256 does", () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    for (const token of [generateToken(), 'é-ünïcode', '']) {
      expect(hashToken(token)).toBe(encodeHexLowerCase(sha256(new TextEncoder().encode(token))));
    }
  });
});
