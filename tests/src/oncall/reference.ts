import type { Restriction } from '@beckon/contracts/schedules/schedules.contract';
import { weekdays } from '@beckon/contracts/schedules/schedules.contract';
import type {
  OnCallAnswer,
  Override,
  ResolvedLayer,
  ResolvedSchedule,
} from '@beckon/server/modules/schedules/on-call';
import {
  addDays,
  instantOf,
  parseWall,
  type Wall,
  wallAt,
} from '@beckon/server/modules/schedules/zoned-time';

const sameWall = (a: Wall, b: Wall) =>
  a.year === b.year && a.month === b.month && a.day === b.day && a.minutes === b.minutes;

/**
 * The instant the zone's clocks read `wall`, by search: every offset from -15 h to +15 h in
 * quarter hours is tried, the earliest match wins; a reading no instant has (a gap) takes the
 * offset the zone had a day before.
 */
export function referenceInstantOf(wall: Wall, zone: string): number {
  const local = Date.UTC(wall.year, wall.month - 1, wall.day) + wall.minutes * 60_000;
  for (let quarter = 60; quarter >= -60; quarter--) {
    const candidate = local - quarter * 15 * 60_000;
    if (sameWall(wallAt(candidate, zone), wall)) return candidate;
  }
  const dayBefore = local - 86_400_000;
  const read = wallAt(dayBefore, zone);
  const offset = Date.UTC(read.year, read.month - 1, read.day) + read.minutes * 60_000 - dayBefore;
  return local - offset;
}

/** The turn running at `at`, by walking every hand-off from the layer's start. */
function referenceTurn(layer: ResolvedLayer, zone: string, at: number): number {
  const start = parseWall(layer.start);
  let k = -1;
  for (;;) {
    const next =
      layer.turn.unit === 'hour'
        ? instantOf(start, zone) + (k + 1) * layer.turn.count * 3_600_000
        : instantOf(addDays(start, (k + 1) * layer.turn.count * (layer.turn.unit === 'week' ? 7 : 1)), zone);
    if (next > at) return k;
    k++;
  }
}

/** Whether `at` falls in one of the restriction windows of the ten days around it. */
function referenceRestricted(restrictions: Restriction[], zone: string, at: number): boolean {
  if (restrictions.length === 0) return true;
  const today = wallAt(at, zone);
  for (let offset = -8; offset <= 1; offset++) {
    const date = addDays(today, offset);
    const weekday = weekdays[(new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay() + 6) % 7];
    for (const r of restrictions) {
      if (!r.days.some((d) => d === weekday)) continue;
      const from = parseWall(r.from).minutes;
      const to = parseWall(r.to).minutes;
      const start = instantOf({ ...date, minutes: from }, zone);
      const end = instantOf({ ...addDays(date, to < from ? 1 : 0), minutes: to }, zone);
      if (start <= at && at < end) return true;
    }
  }
  return false;
}

/** Who is on call at `at`, computed the slow way. */
export function referenceOnCall(schedule: ResolvedSchedule, overrides: Override[], at: number): OnCallAnswer {
  let best: Override | undefined;
  for (const o of overrides) {
    if (o.startsAt > at || at >= o.endsAt) continue;
    if (!best || o.createdAt > best.createdAt || (o.createdAt === best.createdAt && o.id > best.id)) best = o;
  }
  if (best) return { userId: best.userId, source: 'override', layer: null, overrideId: best.id };
  for (let i = 0; i < schedule.layers.length; i++) {
    const layer = schedule.layers[i] as ResolvedLayer;
    if (layer.users.length === 0 || !referenceRestricted(layer.restrictions, schedule.timeZone, at)) continue;
    const k = referenceTurn(layer, schedule.timeZone, at);
    if (k < 0) continue;
    return {
      userId: layer.users[k % layer.users.length] ?? null,
      source: 'layer',
      layer: i,
      overrideId: null,
    };
  }
  return { userId: null, source: null, layer: null, overrideId: null };
}
