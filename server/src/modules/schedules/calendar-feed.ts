import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import type { Env } from '../../env';
import { AppError } from '../../errors';
import { resolveSigningKey } from '../../signing-key';
import { type CalendarEvent, icalendar } from './icalendar';
import { loadSchedule } from './schedules.service';
import { namedShifts } from './shifts.service';

/** What a feed URL shows, signed into it: one schedule's shifts, or one person's on every schedule. */
type FeedClaim = { k: 'schedule'; o: string; s: string } | { k: 'person'; o: string; u: string };

/**
 * The span of a feed: a week back, eight weeks ahead, counted in whole UTC days so that every
 * fetch on one day shows the same events (a calendar client polling it sees no churn).
 */
const FEED_PAST_DAYS = 7;
const FEED_AHEAD_DAYS = 56;

const keys = new WeakMap<Env, Promise<Buffer>>();

/** A key derived from the OAuth signing key for this one use (never that key itself). */
function feedKey(env: Env): Promise<Buffer> {
  let key = keys.get(env);
  if (!key) {
    key = resolveSigningKey(env).then((k) =>
      createHmac('sha256', k).update('beckon calendar feeds v1').digest(),
    );
    keys.set(env, key);
  }
  return key;
}

const mac = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest('base64url');

async function feedUrl(env: Env, claim: FeedClaim): Promise<string> {
  const payload = Buffer.from(JSON.stringify(claim)).toString('base64url');
  return `${env.RESOURCE_URL}/api/calendars/${payload}.${mac(await feedKey(env), payload)}.ics`;
}

async function verifyFeed(env: Env, token: string): Promise<FeedClaim | null> {
  const [payload, signature, extra] = token.replace(/\.ics$/, '').split('.');
  if (!payload || !signature || extra !== undefined) return null;
  const expected = Buffer.from(mac(await feedKey(env), payload));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as FeedClaim;
  } catch {
    return null;
  }
}

export async function scheduleFeedUrl(deps: Deps, identity: Identity, id: string) {
  await loadSchedule(deps.sql, identity.orgId, id);
  return { url: await feedUrl(deps.env, { k: 'schedule', o: identity.orgId, s: id }) };
}

export async function personFeedUrl(deps: Deps, identity: Identity) {
  if (!identity.userId) throw AppError.forbidden('session_required', 'a calendar is a person’s');
  return { url: await feedUrl(deps.env, { k: 'person', o: identity.orgId, u: identity.userId }) };
}

/**
 * The iCalendar text of a feed URL's token, or null when the token is not ours or names what
 * no longer exists (a deleted schedule, a person who left).
 */
export async function calendarFeed(deps: Deps, token: string): Promise<string | null> {
  const claim = await verifyFeed(deps.env, token);
  if (!claim) return null;
  const now = deps.clock().getTime();
  const today = Math.floor(now / 86_400_000) * 86_400_000;
  const from = today - FEED_PAST_DAYS * 86_400_000;
  const to = today + (FEED_AHEAD_DAYS + 1) * 86_400_000;
  const events: CalendarEvent[] = [];
  let name: string;
  try {
    if (claim.k === 'schedule') {
      const { row, shifts, names } = await namedShifts(deps.sql, claim.o, claim.s, from, to);
      name = `On call: ${row.name}`;
      for (const s of shifts) {
        events.push({
          uid: `${row.id}-${s.start}@beckon`,
          start: s.start,
          end: s.end,
          summary: `${names.get(s.userId) ?? 'Someone'} on call (${row.name})`,
        });
      }
    } else {
      const [member] = await deps.sql`
        select 1 from memberships where org_id = ${claim.o} and user_id = ${claim.u}`;
      if (!member) return null;
      name = 'My on-call shifts';
      const ids = await deps.sql<
        { id: string }[]
      >`select id from schedules where org_id = ${claim.o} order by name`;
      for (const { id } of ids) {
        const { row, shifts } = await namedShifts(deps.sql, claim.o, id, from, to);
        for (const s of shifts.filter((shift) => shift.userId === claim.u)) {
          events.push({
            uid: `${row.id}-${claim.u}-${s.start}@beckon`,
            start: s.start,
            end: s.end,
            summary: `On call: ${row.name}`,
          });
        }
      }
    }
  } catch (error) {
    if (error instanceof AppError && error.status === 404) return null;
    throw error;
  }
  return icalendar(name, events, now);
}
