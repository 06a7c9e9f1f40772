import { describe, expect, it } from 'vitest';
import { assigneeKey, durationMs, ZAssignees, ZEscalation } from './assignment.contract';

describe('durationMs', () => {
  it('reads ISO 8601 durations of days, hours, minutes and seconds', () => {
    expect(durationMs('PT30M')).toBe(30 * 60_000);
    expect(durationMs('PT2H')).toBe(2 * 3600_000);
    expect(durationMs('P1DT2H3M4S')).toBe(((24 + 2) * 3600 + 3 * 60 + 4) * 1000);
    expect(durationMs('P7D')).toBe(7 * 86_400_000);
    expect(durationMs('PT90S')).toBe(90_000);
  });

  it('refuses what is not one: empty parts, other units, plain text', () => {
    for (const text of ['P', 'PT', 'P1DT', '30m', 'PT1.5H', 'P1W', 'P1M', 'PT-5M', 'pt30m', '']) {
      expect(durationMs(text), text).toBeNull();
    }
  });
});

describe('escalation policies and assignees', () => {
  const ID = '0190a0a0-0000-7000-8000-000000000000';

  it('keys assignees for "assigned to me"', () => {
    expect(assigneeKey({ type: 'user', id: ID })).toBe(`user:${ID}`);
    expect(assigneeKey({ type: 'team', id: ID })).toBe(`team:${ID}`);
    expect(assigneeKey({ type: 'role', name: 'admin' })).toBe('role:admin');
    expect(assigneeKey({ type: 'schedule', id: ID })).toBe(`schedule:${ID}`);
  });

  it('refuses the same assignee twice, but not the same id as a user and a team', () => {
    expect(
      ZAssignees.safeParse([
        { type: 'role', name: 'admin' },
        { type: 'role', name: 'admin' },
      ]).success,
    ).toBe(false);
    expect(
      ZAssignees.safeParse([
        { type: 'user', id: ID },
        { type: 'team', id: ID },
      ]).success,
    ).toBe(true);
  });

  it('wants steps strictly later than the one before, each within 1 s to 365 days', () => {
    const at = (...after: string[]) => after.map((a) => ({ after: a, action: 'remind' }));
    expect(ZEscalation.safeParse(at('PT30M', 'PT2H', 'P1D')).success).toBe(true);
    expect(ZEscalation.safeParse(at('PT2H', 'PT120M')).success).toBe(false);
    expect(ZEscalation.safeParse(at('PT0S')).success).toBe(false);
    expect(ZEscalation.safeParse(at('P365D')).success).toBe(true);
    expect(ZEscalation.safeParse(at('P366D')).success).toBe(false);
    expect(ZEscalation.safeParse([{ after: 'PT1H', action: 'escalate', to: [] }]).success).toBe(false);
    expect(ZEscalation.safeParse([{ after: 'PT1H', action: 'escalate' }]).success).toBe(false);
  });
});
