import { isIPv6 } from 'node:net';

/**
 * The subject a client address counts as: an IPv4 address as it is, an IPv6 address by its /64
 * network (one host usually holds a whole /64, and could otherwise take a new address for every
 * request). IPv4-mapped IPv6 addresses (`::ffff:192.0.2.1`) count as their IPv4 address.
 */
export function addressSubject(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped?.[1]) return `ip:${mapped[1]}`;
  if (!isIPv6(ip)) return `ip:${ip}`;
  const [head = '', tail] = ip.split('%', 1)[0]?.toLowerCase().split('::') ?? [];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return `ip6:${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
