import { createDb } from '@beckon/db';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalFirstCounter } from './local-counter';
import { isLimited, type Policy } from './policy';

// A PostgreSQL that is not there: nothing listens on port 9 (discard) of this machine.
const unreachable = createDb('postgres://beckon@127.0.0.1:9/beckon', { max: 1, applicationName: 'test' });
afterAll(() => unreachable.end({ timeout: 1 }));

const policy: Policy = { name: 'api', limit: 3, windowSeconds: 60 };

function counterAt(start: number) {
  let now = start;
  const warnings: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
  const counter = new LocalFirstCounter(unreachable.sql, policy, { syncMs: 60_000, now: () => now, log });
  return { counter, warnings, move: (ms: number) => (now += ms) };
}

describe('LocalFirstCounter', () => {
  it('counts in fixed windows, in memory, per subject', () => {
    const { counter, move } = counterAt(Date.UTC(2026, 10, 23, 10, 0, 15));
    const verdicts = [1, 2, 3, 4].map(() => counter.hit('cred:a'));
    expect(verdicts.map((v) => v.count)).toEqual([1, 2, 3, 4]);
    expect(verdicts.map(isLimited)).toEqual([false, false, false, true]);
    expect(verdicts[0]!.resetAt).toBe(Date.UTC(2026, 10, 23, 10, 1, 0));
    expect(counter.hit('cred:b').count).toBe(1);
    expect(counter.hit('cred:a', 5).count).toBe(9);
    move(45_000);
    expect(counter.hit('cred:a')).toMatchObject({ count: 1, resetAt: Date.UTC(2026, 10, 23, 10, 2, 0) });
  });

  it('keeps counting alone while PostgreSQL is unreachable, and says so once', async () => {
    const { counter, warnings } = counterAt(Date.UTC(2026, 10, 23, 10, 0, 0));
    counter.hit('cred:a');
    await counter.sync();
    await counter.sync();
    expect(counter.hit('cred:a').count).toBe(2);
    expect(counter.hit('cred:a').count).toBe(3);
    expect(isLimited(counter.hit('cred:a'))).toBe(true);
    await counter.sync();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('rate limit counters not shared');
  });
});
