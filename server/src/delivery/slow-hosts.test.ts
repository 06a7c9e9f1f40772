import { describe, expect, it } from 'vitest';
import type { OutboundResult } from './outbound';
import { SlowHosts } from './slow-hosts';

const answered = (status: number): OutboundResult => ({
  ok: status < 300,
  status,
  retryAfterSeconds: null,
  error: null,
  durationMs: 5,
});
const failed = (error: string): OutboundResult => ({
  ok: false,
  status: null,
  retryAfterSeconds: null,
  error,
  durationMs: 5,
});

describe('SlowHosts', () => {
  it('never limits a host that answers, however many deliveries run', () => {
    const hosts = new SlowHosts(2);
    const started = Array.from({ length: 50 }, () => hosts.start('fast.example'));
    expect(started.every((done) => done !== null)).toBe(true);
  });

  it('limits a host whose delivery hung to its slots, until one answers in time', () => {
    const hosts = new SlowHosts(2);
    hosts.start('hung.example')!(failed('timeout'));
    expect(hosts.isSlow('hung.example')).toBe(true);
    const first = hosts.start('hung.example');
    const second = hosts.start('hung.example');
    expect(first).not.toBeNull();
    expect(second).not.toBeNull();
    expect(hosts.start('hung.example')).toBeNull();
    // Other hosts are not affected.
    expect(hosts.start('other.example')).not.toBeNull();
    first!(failed('no response headers in time'));
    const third = hosts.start('hung.example');
    expect(third).not.toBeNull();
    expect(hosts.start('hung.example')).toBeNull();
    // Any answer in time (an error status too) makes it fast again.
    second!(answered(503));
    expect(hosts.isSlow('hung.example')).toBe(false);
    expect(hosts.start('hung.example')).not.toBeNull();
    expect(hosts.start('hung.example')).not.toBeNull();
  });

  it('is not made slow by failures that do not hang (refused, aborted)', () => {
    const hosts = new SlowHosts(1);
    hosts.start('down.example')!(failed('connection refused'));
    hosts.start('down.example')!(failed('aborted'));
    expect(hosts.isSlow('down.example')).toBe(false);
  });

  it('forgets the oldest slow host past the ones it remembers', () => {
    const hosts = new SlowHosts(1, 2);
    for (const host of ['a.example', 'b.example', 'c.example']) hosts.start(host)!(failed('timeout'));
    expect(['a.example', 'b.example', 'c.example'].map((h) => hosts.isSlow(h))).toEqual([false, true, true]);
  });
});
