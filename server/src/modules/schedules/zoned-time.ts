/**
 * Wall-clock time in an IANA zone, with Intl only: what a local date and time is as an instant,
 * and what an instant reads on the zone's clocks.
 */

/** A wall-clock reading: calendar date and minutes since midnight. */
export type Wall = { year: number; month: number; day: number; minutes: number };

const formats = new Map<string, Intl.DateTimeFormat>();

function formatIn(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(zone, format);
  }
  return format;
}

/** What the zone's clocks read at `instant` (ms), to the minute. */
export function wallAt(instant: number, zone: string): Wall {
  const parts: Record<string, number> = {};
  for (const part of formatIn(zone).formatToParts(instant)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const { year = 0, month = 1, day = 1, hour = 0, minute = 0 } = parts;
  return { year, month, day, minutes: hour * 60 + minute };
}

/** The wall reading as if it were UTC, in ms: a day number times 86 400 000 plus the time. */
const wallAsUtc = (wall: Wall) => Date.UTC(wall.year, wall.month - 1, wall.day) + wall.minutes * 60_000;

/** The zone's offset from UTC at `instant`, in ms (seconds of historical offsets dropped). */
export function offsetAt(instant: number, zone: string): number {
  const floored = Math.floor(instant / 60_000) * 60_000;
  return wallAsUtc(wallAt(floored, zone)) - floored;
}

/**
 * The instant at which the zone's clocks read `wall`. A reading that happens twice (clocks set
 * back) is the earlier one; one that never happens (clocks set forward) is read with the offset
 * from before the change, so it lands as far after the gap as it was into it (02:30 in a 02:00
 * to 03:00 gap is 03:30), as RFC 5545 and Temporal's "compatible" do.
 */
export function instantOf(wall: Wall, zone: string): number {
  const local = wallAsUtc(wall);
  const before = offsetAt(local - 86_400_000, zone);
  const after = offsetAt(local + 86_400_000, zone);
  const valid = [local - before, local - after].filter((t) => offsetAt(t, zone) === local - t);
  if (valid.length > 0) return Math.min(...valid);
  return local - before;
}

/** The date `days` calendar days after the wall's date, same time of day. */
export function addDays(wall: Wall, days: number): Wall {
  const date = new Date(Date.UTC(wall.year, wall.month - 1, wall.day + days));
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    minutes: wall.minutes,
  };
}

/** Calendar days from `a`'s date to `b`'s date. */
export const daysBetween = (a: Wall, b: Wall) =>
  Math.round((Date.UTC(b.year, b.month - 1, b.day) - Date.UTC(a.year, a.month - 1, a.day)) / 86_400_000);

/** 0 for Monday to 6 for Sunday. */
export const weekdayOf = (wall: Wall) =>
  (new Date(Date.UTC(wall.year, wall.month - 1, wall.day)).getUTCDay() + 6) % 7;

/** `YYYY-MM-DDTHH:MM` or `HH:MM` read as a wall reading (the date part defaults to 1970-01-01). */
export function parseWall(text: string): Wall {
  const [date, time] = text.includes('T') ? text.split('T') : ['1970-01-01', text];
  const [year = 1970, month = 1, day = 1] = (date ?? '').split('-').map(Number);
  const [hour = 0, minute = 0] = (time ?? '').split(':').map(Number);
  return { year, month, day, minutes: hour * 60 + minute };
}
