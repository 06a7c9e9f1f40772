import type { Restriction } from '@beckon/contracts/schedules/schedules.contract';
import { weekdays } from '@beckon/contracts/schedules/schedules.contract';
import {
  handOff,
  type Override,
  onCallAt,
  type ResolvedLayer,
  type ResolvedSchedule,
} from '@beckon/server/modules/schedules/on-call';
import { instantOf, parseWall, type Wall } from '@beckon/server/modules/schedules/zoned-time';
import { describe, expect, it } from 'vitest';
import { referenceInstantOf, referenceOnCall } from './reference';

/** A small seeded generator (mulberry32), so a failure names a seed that replays it. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(list: readonly T[]) => list[int(0, list.length - 1)] as T;
  return { next, int, pick };
}

const ZONES = [
  'UTC',
  'America/New_York',
  'America/Santiago',
  'Europe/Paris',
  'Europe/London',
  'Australia/Sydney',
  'Australia/Lord_Howe',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Pacific/Auckland',
] as const;
const pad = (n: number) => String(n).padStart(2, '0');
const clock = (minutes: number) => `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;

type Rng = ReturnType<typeof random>;

function randomWall(rng: Rng, fromYear: number, toYear: number): Wall {
  return {
    year: rng.int(fromYear, toYear),
    month: rng.int(1, 12),
    day: rng.int(1, 28),
    // Often near the hours clocks change at.
    minutes: rng.next() < 0.5 ? rng.int(0, 4) * 60 + rng.pick([0, 15, 30, 45]) : rng.int(0, 1439),
  };
}

function randomLayer(rng: Rng): ResolvedLayer {
  const w = randomWall(rng, 2025, 2025);
  const unit = rng.pick(['hour', 'day', 'day', 'week'] as const);
  const restrictions: Restriction[] = [];
  for (let i = rng.pick([0, 0, 0, 1, 2]); i > 0; i--) {
    const days = weekdays.filter(() => rng.next() < 0.5);
    const from = rng.int(0, 95) * 15;
    let to = rng.int(0, 95) * 15;
    if (to === from) to = (from + 60) % 1440;
    restrictions.push({ days: days.length > 0 ? days : ['mon'], from: clock(from), to: clock(to) });
  }
  return {
    start: `${w.year}-${pad(w.month)}-${pad(w.day)}T${clock(w.minutes)}`,
    turn: { unit, count: unit === 'hour' ? rng.pick([1, 8, 12, 24, 36]) : rng.int(1, 3) },
    restrictions,
    users: Array.from({ length: rng.int(1, 4) }, (_, i) => `user-${i}`),
  };
}

function randomCase(seed: number) {
  const rng = random(seed);
  const zone = rng.pick(ZONES);
  const schedule: ResolvedSchedule = {
    timeZone: zone,
    layers: Array.from({ length: rng.int(1, 3) }, () => randomLayer(rng)),
  };
  const base = Date.UTC(2025, 0, 1);
  const span = 2 * 365 * 86_400_000;
  const cluster = base + Math.floor(rng.next() * span);
  const overrides: Override[] = Array.from({ length: rng.pick([0, 0, 1, 3]) }, (_, i) => {
    // Close together, so they often overlap and the latest created must win.
    const startsAt = cluster + rng.int(-72, 72) * 3_600_000;
    return {
      id: `override-${i}`,
      userId: `stand-in-${i}`,
      startsAt,
      endsAt: startsAt + rng.int(1, 14 * 24) * 3_600_000,
      createdAt: rng.int(0, 2),
    };
  });
  const layer = schedule.layers[0] as ResolvedLayer;
  const restriction = rng.pick(schedule.layers.flatMap((l) => l.restrictions));
  // Instants at hand-offs, override and restriction edges (and a millisecond before), or anywhere.
  const kind = rng.int(0, 4);
  const edge = rng.int(0, 1);
  let at = base + Math.floor(rng.next() * span);
  if (kind === 0) at = handOff(layer, zone, rng.int(0, 400)) - edge;
  if (kind === 1 && overrides[0])
    at = (rng.next() < 0.5 ? overrides[0].startsAt : overrides[0].endsAt) - edge;
  if (kind === 2 && restriction) {
    const minutes = parseWall(rng.next() < 0.5 ? restriction.from : restriction.to).minutes;
    at = instantOf({ ...randomWall(rng, 2025, 2026), minutes }, zone) - edge;
  }
  if (kind === 3) at = instantOf(randomWall(rng, 2025, 2026), zone) - edge;
  return { schedule, overrides, at };
}

describe('on-call resolution against a brute-force reference', () => {
  it('agrees on 400 random schedules, overrides and instants', () => {
    const decided = { layer: 0, override: 0, nobody: 0 };
    for (let seed = 1; seed <= 400; seed++) {
      const { schedule, overrides, at } = randomCase(seed);
      const answer = onCallAt(schedule, overrides, at);
      expect(answer, `seed ${seed}`).toEqual(referenceOnCall(schedule, overrides, at));
      decided[answer.source ?? 'nobody']++;
    }
    // Each way of deciding is exercised, not only the trivial ones.
    expect(decided.layer).toBeGreaterThan(150);
    expect(decided.override).toBeGreaterThan(20);
    expect(decided.nobody).toBeGreaterThan(20);
  });

  it('reads wall-clock times as the search over every offset does', () => {
    const rng = random(7);
    for (let i = 0; i < 1500; i++) {
      const zone = rng.pick(ZONES);
      const wall = randomWall(rng, 2025, 2027);
      expect(instantOf(wall, zone), `${zone} ${JSON.stringify(wall)}`).toBe(referenceInstantOf(wall, zone));
    }
  });

  it('the reference itself sees both changes (it is not vacuous)', () => {
    expect(referenceInstantOf(parseWall('2026-03-08T02:30'), 'America/New_York')).toBe(
      Date.parse('2026-03-08T07:30:00Z'),
    );
    expect(referenceInstantOf(parseWall('2026-11-01T01:30'), 'America/New_York')).toBe(
      Date.parse('2026-11-01T05:30:00Z'),
    );
  });
});
