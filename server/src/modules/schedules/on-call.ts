import type { Layer, Restriction } from '@beckon/contracts/schedules/schedules.contract';
import { weekdays } from '@beckon/contracts/schedules/schedules.contract';
import { addDays, daysBetween, instantOf, parseWall, type Wall, wallAt, weekdayOf } from './zoned-time';

/** A layer whose members are resolved to the people taking turns, in order. */
export type ResolvedLayer = Pick<Layer, 'start' | 'turn' | 'restrictions'> & { users: string[] };
export type ResolvedSchedule = { timeZone: string; layers: ResolvedLayer[] };
export type Override = { id: string; userId: string; startsAt: number; endsAt: number; createdAt: number };

export type OnCallAnswer = {
  userId: string | null;
  source: 'override' | 'layer' | null;
  layer: number | null;
  overrideId: string | null;
};

const HOUR = 3_600_000;

/** The instant of the layer's hand-off number `k` (0: its start). */
export function handOff(layer: ResolvedLayer, zone: string, k: number): number {
  const start = parseWall(layer.start);
  if (layer.turn.unit === 'hour') return instantOf(start, zone) + k * layer.turn.count * HOUR;
  const step = layer.turn.count * (layer.turn.unit === 'week' ? 7 : 1);
  return instantOf(addDays(start, k * step), zone);
}

/** The number of the turn running at `at` (-1 before the first hand-off). */
export function turnAt(layer: ResolvedLayer, zone: string, at: number): number {
  const start = parseWall(layer.start);
  const first = instantOf(start, zone);
  if (at < first) return -1;
  if (layer.turn.unit === 'hour') return Math.floor((at - first) / (layer.turn.count * HOUR));
  const step = layer.turn.count * (layer.turn.unit === 'week' ? 7 : 1);
  // The calendar gives the turn to within one; the hand-off instants settle it.
  let k = Math.max(0, Math.floor(daysBetween(start, wallAt(at, zone)) / step));
  while (k > 0 && handOff(layer, zone, k) > at) k--;
  while (handOff(layer, zone, k + 1) <= at) k++;
  return k;
}

/** The restriction window that starts on `date`'s day, as instants. */
export function windowOn(restriction: Restriction, zone: string, date: Wall): [number, number] {
  const from = parseWall(restriction.from).minutes;
  const to = parseWall(restriction.to).minutes;
  const start = instantOf({ ...date, minutes: from }, zone);
  const end = instantOf({ ...addDays(date, to < from ? 1 : 0), minutes: to }, zone);
  return [start, end];
}

/** Whether the layer's restrictions let it be on call at `at` (no restriction: always). */
export function withinRestrictions(restrictions: Restriction[], zone: string, at: number): boolean {
  if (restrictions.length === 0) return true;
  const today = wallAt(at, zone);
  return [addDays(today, -1), today].some((date) =>
    restrictions.some((restriction) => {
      if (!restriction.days.includes(weekdays[weekdayOf(date)] as Restriction['days'][number])) return false;
      const [start, end] = windowOn(restriction, zone, date);
      return start <= at && at < end;
    }),
  );
}

/** Who is on the layer at `at`, or null. */
export function layerOnCall(layer: ResolvedLayer, zone: string, at: number): string | null {
  if (layer.users.length === 0 || !withinRestrictions(layer.restrictions, zone, at)) return null;
  const k = turnAt(layer, zone, at);
  return k < 0 ? null : (layer.users[k % layer.users.length] ?? null);
}

/**
 * Who is on call at `at`: the latest created override covering it, else the first layer with
 * someone on call, else nobody.
 */
export function onCallAt(schedule: ResolvedSchedule, overrides: Override[], at: number): OnCallAnswer {
  const covering = overrides
    .filter((o) => o.startsAt <= at && at < o.endsAt)
    .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))[0];
  if (covering) return { userId: covering.userId, source: 'override', layer: null, overrideId: covering.id };
  for (const [i, layer] of schedule.layers.entries()) {
    const userId = layerOnCall(layer, schedule.timeZone, at);
    if (userId) return { userId, source: 'layer', layer: i, overrideId: null };
  }
  return { userId: null, source: null, layer: null, overrideId: null };
}
