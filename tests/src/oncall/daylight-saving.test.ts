import {
  handOff,
  onCallAt,
  type ResolvedLayer,
  withinRestrictions,
} from '@beckon/server/modules/schedules/on-call';
import { instantOf, parseWall, wallAt } from '@beckon/server/modules/schedules/zoned-time';
import { describe, expect, it } from 'vitest';

const iso = (ms: number) => new Date(ms).toISOString();
const at = (text: string) => Date.parse(text);

/** Daylight-saving changes of 2026, each as the wall reading that happens twice or never. */
const ZONES = [
  {
    zone: 'America/New_York',
    gap: { wall: '2026-03-08T02:30', instant: '2026-03-08T07:30:00.000Z' },
    twice: { wall: '2026-11-01T01:30', instant: '2026-11-01T05:30:00.000Z' },
  },
  {
    zone: 'Europe/Paris',
    gap: { wall: '2026-03-29T02:30', instant: '2026-03-29T01:30:00.000Z' },
    twice: { wall: '2026-10-25T02:30', instant: '2026-10-25T00:30:00.000Z' },
  },
  {
    zone: 'Australia/Sydney',
    gap: { wall: '2026-10-04T02:30', instant: '2026-10-03T16:30:00.000Z' },
    twice: { wall: '2026-04-05T02:30', instant: '2026-04-04T15:30:00.000Z' },
  },
  {
    // A half-hour change: 02:00 becomes 02:30 in October, 02:00 becomes 01:30 in April.
    zone: 'Australia/Lord_Howe',
    gap: { wall: '2026-10-04T02:15', instant: '2026-10-03T15:45:00.000Z' },
    twice: { wall: '2026-04-05T01:45', instant: '2026-04-04T14:45:00.000Z' },
  },
];

describe('wall-clock readings at daylight-saving changes', () => {
  for (const { zone, gap, twice } of ZONES) {
    it(`${zone}: a reading in the gap lands after it, a repeated one is the first`, () => {
      expect(iso(instantOf(parseWall(gap.wall), zone))).toBe(gap.instant);
      expect(iso(instantOf(parseWall(twice.wall), zone))).toBe(twice.instant);
    });
  }

  it('reads instants back as the zone shows them', () => {
    expect(wallAt(at('2026-03-08T07:30:00Z'), 'America/New_York')).toEqual(parseWall('2026-03-08T03:30'));
    expect(wallAt(at('2026-11-01T06:30:00Z'), 'America/New_York')).toEqual(parseWall('2026-11-01T01:30'));
    expect(wallAt(at('2026-06-01T12:00:00Z'), 'Asia/Kolkata')).toEqual(parseWall('2026-06-01T17:30'));
  });
});

const daily = (start: string, zone: string, users = ['alice', 'bob']) => ({
  timeZone: zone,
  layers: [{ start, turn: { unit: 'day' as const, count: 1 }, restrictions: [], users }],
});

describe('hand-offs keep their wall-clock time across both changes', () => {
  const cases = [
    // zone, daily 09:00 hand-offs around the spring and autumn changes (UTC instants).
    ['America/New_York', ['2026-03-07T14:00', '2026-03-08T13:00'], ['2026-10-31T13:00', '2026-11-01T14:00']],
    ['Europe/Paris', ['2026-03-28T08:00', '2026-03-29T07:00'], ['2026-10-24T07:00', '2026-10-25T08:00']],
    ['Australia/Sydney', ['2026-10-02T23:00', '2026-10-03T22:00'], ['2026-04-03T22:00', '2026-04-04T23:00']],
    ['America/Santiago', ['2026-09-05T13:00', '2026-09-06T12:00'], ['2026-04-04T12:00', '2026-04-05T13:00']],
  ] as const;

  for (const [zone, spring, autumn] of cases) {
    it(`${zone}: the turn is 23 hours in spring and 25 in autumn, and the person changes at 09:00`, () => {
      for (const [before, after] of [spring, autumn]) {
        const first = wallAt(at(`${before}:00Z`), zone);
        expect(first.minutes).toBe(9 * 60);
        const schedule = daily('2026-01-01T09:00', zone);
        const layer = schedule.layers[0] as ResolvedLayer;
        const hours = (at(`${after}:00Z`) - at(`${before}:00Z`)) / 3_600_000;
        expect(hours).toBe(before === spring[0] ? 23 : 25);
        const whoAt = (ms: number) => onCallAt(schedule, [], ms).userId;
        const handOffAfter = at(`${after}:00Z`);
        expect(whoAt(handOffAfter - 1)).toBe(whoAt(at(`${before}:00Z`)));
        expect(whoAt(handOffAfter)).not.toBe(whoAt(handOffAfter - 1));
        const k = Math.round((handOffAfter - instantOf(parseWall('2026-01-01T09:00'), zone)) / 86_400_000);
        expect([k - 1, k, k + 1].map((n) => iso(handOff(layer, zone, n)))).toContain(iso(handOffAfter));
      }
    });
  }

  it('hands off after the gap when the hand-off time does not exist, and once when it happens twice', () => {
    const zone = 'America/New_York';
    const gap = daily('2026-03-01T02:30', zone).layers[0] as ResolvedLayer;
    expect(iso(handOff(gap, zone, 7))).toBe('2026-03-08T07:30:00.000Z');
    expect(iso(handOff(gap, zone, 8))).toBe('2026-03-09T06:30:00.000Z');
    const twice = daily('2026-10-25T01:30', zone).layers[0] as ResolvedLayer;
    expect(iso(handOff(twice, zone, 7))).toBe('2026-11-01T05:30:00.000Z');
    expect(iso(handOff(twice, zone, 8))).toBe('2026-11-02T06:30:00.000Z');
  });

  it('counts turns of hours as elapsed time, whatever the clocks say', () => {
    const zone = 'Europe/Paris';
    const schedule = {
      timeZone: zone,
      layers: [
        {
          start: '2026-03-28T20:00',
          turn: { unit: 'hour' as const, count: 12 },
          restrictions: [],
          users: ['alice', 'bob'],
        },
      ],
    };
    // 20:00 CET is 19:00Z; 12 elapsed hours later is 07:00Z, 09:00 on the clocks after the change.
    expect(onCallAt(schedule, [], at('2026-03-29T06:59:59.999Z')).userId).toBe('alice');
    expect(onCallAt(schedule, [], at('2026-03-29T07:00:00Z')).userId).toBe('bob');
  });
});

describe('restrictions follow the wall clock', () => {
  const weekdays = [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'] as const, from: '09:00', to: '18:00' }].map(
    (r) => ({ ...r, days: [...r.days] }),
  );

  it('weekdays 09:00-18:00 in Paris: an hour earlier in UTC after the spring change', () => {
    const zone = 'Europe/Paris';
    // Friday 27 March (CET, UTC+1) and Monday 30 March (CEST, UTC+2).
    expect(withinRestrictions(weekdays, zone, at('2026-03-27T07:30:00Z'))).toBe(false);
    expect(withinRestrictions(weekdays, zone, at('2026-03-27T08:00:00Z'))).toBe(true);
    expect(withinRestrictions(weekdays, zone, at('2026-03-27T16:59:59Z'))).toBe(true);
    expect(withinRestrictions(weekdays, zone, at('2026-03-27T17:00:00Z'))).toBe(false);
    expect(withinRestrictions(weekdays, zone, at('2026-03-30T07:30:00Z'))).toBe(true);
    expect(withinRestrictions(weekdays, zone, at('2026-03-30T16:00:00Z'))).toBe(false);
    expect(withinRestrictions(weekdays, zone, at('2026-03-28T10:00:00Z'))).toBe(false);
  });

  it('a night window runs past midnight, and is 10 hours long on the autumn change', () => {
    const zone = 'America/New_York';
    const nights = [{ days: ['sat' as const], from: '22:00', to: '07:00' }];
    // Saturday 31 October 22:00 EDT (02:00Z) to Sunday 07:00 EST (12:00Z).
    expect(withinRestrictions(nights, zone, at('2026-11-01T01:59:59Z'))).toBe(false);
    expect(withinRestrictions(nights, zone, at('2026-11-01T02:00:00Z'))).toBe(true);
    expect(withinRestrictions(nights, zone, at('2026-11-01T11:59:59Z'))).toBe(true);
    expect(withinRestrictions(nights, zone, at('2026-11-01T12:00:00Z'))).toBe(false);
  });
});
