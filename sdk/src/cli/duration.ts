const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A point in time for `snooze` and `--deadline`: an ISO 8601 datetime, or a duration from now
 * (`90s`, `30m`, `2h`, `1d`). Returns the ISO string, or null when the text is neither.
 */
export function parseWhen(text: string, now = Date.now()): string | null {
  const relative = /^(\d+(?:\.\d+)?)([smhd])$/.exec(text.trim());
  if (relative)
    return new Date(now + Number(relative[1]) * (UNITS[relative[2] ?? 's'] ?? 1000)).toISOString();
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text)) return null;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
