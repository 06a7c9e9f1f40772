import { describe, expect, it } from 'vitest';
import { addressSubject } from './client-address';

describe('addressSubject', () => {
  it('counts IPv4 addresses one by one, mapped ones included', () => {
    expect(addressSubject('203.0.113.7')).toBe('ip:203.0.113.7');
    expect(addressSubject('::ffff:203.0.113.7')).toBe('ip:203.0.113.7');
  });

  it('counts IPv6 addresses by their /64 network, however they are written', () => {
    const network = 'ip6:2001:db8:85a3:42::/64';
    expect(addressSubject('2001:db8:85a3:42::1')).toBe(network);
    expect(addressSubject('2001:0db8:85a3:0042:ffff:1:2:3')).toBe(network);
    expect(addressSubject('2001:DB8:85A3:42:0:0:0:9')).toBe(network);
    expect(addressSubject('2001:db8::1')).toBe('ip6:2001:db8:0:0::/64');
    expect(addressSubject('::1')).toBe('ip6:0:0:0:0::/64');
    expect(addressSubject('fe80::1%eth0')).toBe('ip6:fe80:0:0:0::/64');
  });
});
