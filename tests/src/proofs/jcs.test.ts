import { createHash } from 'node:crypto';
import { actionDigest } from '@beckon/contracts/proofs/action';
import { canonicalize, jcsDigest } from '@beckon/contracts/proofs/jcs';
import { describe, expect, it } from 'vitest';

/** An IEEE 754 double from its 16 hex digits, as RFC 8785 Appendix B lists them. */
const double = (hex: string) => Buffer.from(hex, 'hex').readDoubleBE(0);

describe('RFC 8785 (JCS)', () => {
  it('serialises the RFC’s section 3.2.2 example', () => {
    const input = JSON.parse(`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\"\\/",
      "literals": [null, true, false]
    }`);
    expect(canonicalize(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('sorts members by UTF-16 code units (section 3.2.3)', () => {
    const input = JSON.parse(`{
      "\\u20ac": "Euro Sign",
      "\\r": "Carriage Return",
      "\\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\\ud83d\\ude00": "Emoji: Grinning Face",
      "\\u0080": "Control",
      "\\u00f6": "Latin Small Letter O With Diaeresis"
    }`);
    // Read in the text's order (JSON.parse would put the integer-like key "1" first).
    const values = [...canonicalize(input).matchAll(/:"([^"]*)"/g)].map((m) => m[1]);
    expect(values).toEqual([
      'Carriage Return',
      'One',
      'Control',
      'Latin Small Letter O With Diaeresis',
      'Euro Sign',
      'Emoji: Grinning Face',
      'Hebrew Letter Dalet With Dagesh',
    ]);
    // Nested objects too, and arrays keep their order.
    expect(canonicalize({ b: [3, { z: 1, a: 2 }], a: { y: null, x: true } })).toBe(
      '{"a":{"x":true,"y":null},"b":[3,{"a":2,"z":1}]}',
    );
  });

  it('writes numbers as Appendix B lists them', () => {
    const vectors: [string, string][] = [
      ['0000000000000000', '0'],
      ['8000000000000000', '0'],
      ['0000000000000001', '5e-324'],
      ['8000000000000001', '-5e-324'],
      ['7fefffffffffffff', '1.7976931348623157e+308'],
      ['ffefffffffffffff', '-1.7976931348623157e+308'],
      ['4340000000000000', '9007199254740992'],
      ['c340000000000000', '-9007199254740992'],
      ['4430000000000000', '295147905179352830000'],
      ['44b52d02c7e14af5', '9.999999999999997e+22'],
      ['44b52d02c7e14af6', '1e+23'],
      ['44b52d02c7e14af7', '1.0000000000000001e+23'],
      ['444b1ae4d6e2ef4e', '999999999999999700000'],
      ['444b1ae4d6e2ef4f', '999999999999999900000'],
      ['444b1ae4d6e2ef50', '1e+21'],
      ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
      ['3eb0c6f7a0b5ed8d', '0.000001'],
      ['41b3de4355555553', '333333333.3333332'],
      ['41b3de4355555554', '333333333.33333325'],
      ['41b3de4355555555', '333333333.3333333'],
      ['41b3de4355555556', '333333333.3333334'],
      ['41b3de4355555557', '333333333.33333343'],
      ['becbf647612f3696', '-0.0000033333333333333333'],
      ['43143ff3c1cb0959', '1424953923781206.2'],
    ];
    for (const [hex, text] of vectors) expect([hex, canonicalize(double(hex))]).toEqual([hex, text]);
    // NaN and the infinities are not JSON.
    for (const hex of ['7fffffffffffffff', '7ff0000000000000', 'fff0000000000000']) {
      expect(() => canonicalize(double(hex))).toThrow(/not a JSON number/);
    }
  });

  it('leaves out what JSON leaves out and refuses what it cannot hold', () => {
    expect(canonicalize({ a: undefined, b: 1, c: () => 1 })).toBe('{"b":1}');
    expect(canonicalize([undefined, 1])).toBe('[null,1]');
    expect(canonicalize({ at: new Date('2026-01-02T03:04:05.678Z') })).toBe(
      '{"at":"2026-01-02T03:04:05.678Z"}',
    );
    expect(() => canonicalize({ n: 10n })).toThrow(/bigint is not JSON/);
  });

  it('digests the canonical form with SHA-256, as any other implementation would', async () => {
    const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
    expect(await jcsDigest({ b: 'ü', a: [1.0, 2.5] })).toBe(sha('{"a":[1,2.5],"b":"ü"}'));
    const action = { policy_version: 'v7', args: { replicas: 3, env: 'prod' }, kind: 'deploy' };
    expect(await actionDigest(action)).toBe(
      sha('{"args":{"env":"prod","replicas":3},"kind":"deploy","policy_version":"v7"}'),
    );
    // No policy version: the member is absent, not null.
    expect(await actionDigest({ kind: 'deploy', args: {}, policy_version: null })).toBe(
      sha('{"args":{},"kind":"deploy"}'),
    );
  });
});
