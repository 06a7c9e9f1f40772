import { weekdays } from '@beckon/contracts/schedules/schedules.contract';
import { handOff, type Override, onCallAt, type ResolvedSchedule, turnAt, windowOn } from './on-call';
import { addDays, wallAt, weekdayOf } from './zoned-time';

/** A stretch of time with one person on call (or nobody: userId null). */
export type Shift = { userId: string | null; start: number; end: number };

/**
 * The instants in [from, to) where who is on call may change: hand-offs, restriction window
 * edges, override edges. Between two of them the answer is the same.
 */
function boundaries(schedule: ResolvedSchedule, overrides: Override[], from: number, to: number): number[] {
  const zone = schedule.timeZone;
  const points = new Set<number>([from]);
  for (const layer of schedule.layers) {
    for (let k = Math.max(0, turnAt(layer, zone, from)); ; k++) {
      const at = handOff(layer, zone, k);
      if (at >= to) break;
      points.add(at);
    }
    const first = addDays(wallAt(from, zone), -1);
    const days = Math.ceil((to - from) / 86_400_000) + 2;
    for (let d = 0; d <= days; d++) {
      const date = addDays(first, d);
      for (const restriction of layer.restrictions) {
        if (!restriction.days.includes(weekdays[weekdayOf(date)] as (typeof weekdays)[number])) continue;
        for (const edge of windowOn(restriction, zone, date)) points.add(edge);
      }
    }
  }
  for (const o of overrides) points.add(o.startsAt).add(o.endsAt);
  return [...points].filter((t) => t >= from && t < to).sort((a, b) => a - b);
}

/** Who is on call over [from, to), as consecutive shifts (adjacent equal ones merged). */
export function shiftsBetween(
  schedule: ResolvedSchedule,
  overrides: Override[],
  from: number,
  to: number,
): Shift[] {
  const shifts: Shift[] = [];
  const points = boundaries(schedule, overrides, from, to);
  points.forEach((start, i) => {
    const end = points[i + 1] ?? to;
    const { userId } = onCallAt(schedule, overrides, start);
    const last = shifts.at(-1);
    if (last && last.userId === userId) last.end = end;
    else shifts.push({ userId, start, end });
  });
  return shifts;
}
