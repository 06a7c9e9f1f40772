import { describe, expect, it } from 'vitest';
import { nameFromCallback } from './device-vendor-provider';
import { clearFlowCookie, readCookie, setFlowCookie } from './flow-cookie';

describe('flow cookie', () => {
  it('is HttpOnly and scoped to the provider; cross-site (None; Secure) only for idp_c', () => {
    expect(setFlowCookie('idp_a', 'n1', false)).toBe(
      'beckon_flow_idp_a=n1; Path=/auth/oauth/idp_a; Max-Age=600; HttpOnly; SameSite=Lax',
    );
    expect(setFlowCookie('idp_b', 'n1', true)).toContain('SameSite=Lax; Secure');
    expect(setFlowCookie('idp_c', 'n1', false)).toContain('HttpOnly; SameSite=None; Secure');
    expect(clearFlowCookie('idp_c', false)).toMatch(/^beckon_flow_idp_c=; .*Max-Age=0/);
  });

  it('reads one cookie out of a Cookie header', () => {
    const header = 'a=1; beckon_flow_idp_a=nonce-x ;beckon_flow_idp_b=y=z';
    expect(readCookie(header, 'beckon_flow_idp_a')).toBe('nonce-x');
    expect(readCookie(header, 'beckon_flow_idp_b')).toBe('y=z');
    expect(readCookie(header, 'missing')).toBeUndefined();
    expect(readCookie('beckon_flow_idp_a=', 'beckon_flow_idp_a')).toBeUndefined();
    expect(readCookie(undefined, 'a')).toBeUndefined();
  });
});

describe("idp_c's name field", () => {
  it('joins first and last name; ignores anything else', () => {
    expect(nameFromCallback('{"name":{"firstName":"Ada","lastName":"Lovelace"},"email":"a@b.c"}')).toBe(
      'Ada Lovelace',
    );
    expect(nameFromCallback('{"name":{"firstName":"Ada"}}')).toBe('Ada');
    expect(nameFromCallback('not json')).toBeNull();
    expect(nameFromCallback(undefined)).toBeNull();
    expect(nameFromCallback('{"name":{"firstName":42}}')).toBeNull();
  });
});
