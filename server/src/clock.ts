/**
 * The service's notion of "now" for credential lifetimes (sessions, keys, links, invitations):
 * one function in Deps, so tests move time instead of sleeping.
 */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** A clock tests can move forward. */
export function manualClock(start = new Date()): Clock & { advance: (ms: number) => void } {
  const startedAt = Date.now();
  let offset = 0;
  const clock = () => new Date(start.getTime() + offset + (Date.now() - startedAt));
  return Object.assign(clock, {
    advance: (ms: number) => {
      offset += ms;
    },
  });
}

export const DAY_MS = 24 * 3600 * 1000;
export const addDays = (date: Date, days: number) => new Date(date.getTime() + days * DAY_MS);
