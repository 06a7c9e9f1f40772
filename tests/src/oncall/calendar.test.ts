import { icalendar } from '@beckon/server/modules/schedules/icalendar';
import { onCallAt, type ResolvedSchedule } from '@beckon/server/modules/schedules/on-call';
import { shiftsBetween } from '@beckon/server/modules/schedules/shifts';
import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';

type Parsed = { uid: string; summary: string; start: number; end: number };

/** Parses a feed as a calendar client would (ical.js), checking the RFC 5545 framing on the way. */
function parseFeed(text: string): { name: string; events: Parsed[] } {
  expect(text.endsWith('\r\n')).toBe(true);
  for (const line of text.split('\r\n')) {
    expect(line.includes('\n'), 'bare line feed').toBe(false);
    expect(Buffer.byteLength(line), line).toBeLessThanOrEqual(75);
  }
  const calendar = new ICAL.Component(ICAL.parse(text));
  expect(calendar.name).toBe('vcalendar');
  expect(calendar.getFirstPropertyValue('version')).toBe('2.0');
  expect(calendar.getFirstPropertyValue('prodid')).toBeTruthy();
  const events = calendar.getAllSubcomponents('vevent').map((component) => {
    expect(component.getFirstPropertyValue('dtstamp'), 'DTSTAMP is required').toBeTruthy();
    const event = new ICAL.Event(component);
    return {
      uid: event.uid,
      summary: event.summary,
      start: event.startDate.toJSDate().getTime(),
      end: event.endDate.toJSDate().getTime(),
    };
  });
  expect(new Set(events.map((e) => e.uid)).size, 'unique UIDs').toBe(events.length);
  return { name: String(calendar.getFirstPropertyValue('x-wr-calname')), events };
}

describe('shifts and their calendar text', () => {
  const schedule: ResolvedSchedule = {
    timeZone: 'Europe/Paris',
    layers: [
      {
        start: '2026-03-23T09:00',
        turn: { unit: 'day', count: 1 },
        restrictions: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '09:00', to: '18:00' }],
        users: ['ada', 'grace'],
      },
      { start: '2026-03-01T00:00', turn: { unit: 'week', count: 1 }, restrictions: [], users: ['linus'] },
    ],
  };
  const overrides = [
    {
      id: 'o',
      userId: 'ken',
      startsAt: Date.parse('2026-03-26T10:00:00Z'),
      endsAt: Date.parse('2026-03-26T12:30:00Z'),
      createdAt: 1,
    },
  ];
  const from = Date.parse('2026-03-22T00:00:00Z');
  const to = Date.parse('2026-04-05T00:00:00Z');

  it('covers the span with consecutive shifts that agree with who is on call at every minute', () => {
    const shifts = shiftsBetween(schedule, overrides, from, to);
    expect(shifts[0]?.start).toBe(from);
    expect(shifts.at(-1)?.end).toBe(to);
    shifts.forEach((shift, i) => {
      if (i > 0) expect(shift.start).toBe(shifts[i - 1]?.end);
      expect(shift.userId).not.toBe(shifts[i - 1]?.userId);
    });
    for (let at = from; at < to; at += 7 * 60_000) {
      const shift = shifts.find((s) => s.start <= at && at < s.end);
      expect(shift?.userId, new Date(at).toISOString()).toBe(onCallAt(schedule, overrides, at).userId);
    }
    // Across the spring change (29 March), office hours start at 07:00Z.
    expect(shifts).toContainEqual({
      userId: 'grace',
      start: Date.parse('2026-03-30T07:00:00Z'),
      end: Date.parse('2026-03-30T16:00:00Z'),
    });
  });

  it('writes valid iCalendar: escaped text, folded long lines, UTC times', () => {
    const summary = 'Ada Lovelace, Grace Hopper; Ken Thompson \\ Løvlåce on call for the très long schedule';
    const text = icalendar(
      'On call: ops',
      [{ uid: 'u1@beckon', start: from, end: from + 3_600_000, summary }],
      from,
    );
    const { name, events } = parseFeed(text);
    expect(name).toBe('On call: ops');
    expect(events).toEqual([{ uid: 'u1@beckon', summary, start: from, end: from + 3_600_000 }]);
    expect(text).toContain('DTSTART:20260322T000000Z\r\n');
  });
});

let server: TestServer;
let owner: HttpClient;
let viewer: HttpClient;
let other: HttpClient;
let ada: string;
let grace: string;

beforeAll(async () => {
  server = await startTestServer();
  const f = new Factories(server.database.db);
  const org = await f.team(server.resource);
  owner = org.owner;
  const a = await org.join('viewer');
  const g = await org.join('member');
  [ada, grace, viewer] = [a.id, g.id, a.api];
  await server.database.sql`update users set name = 'Ada Lovelace' where id = ${ada}`;
  await server.database.sql`update users set name = 'Grace Hopper' where id = ${grace}`;
  other = (await f.team(server.resource)).owner;
});
afterAll(() => server?.close());

const feed = async (url: string) => {
  const { pathname } = new URL(url);
  return server.resource.get<string>(pathname, { token: null });
};

describe('calendar feeds at signed URLs', () => {
  let scheduleId: string;
  let scheduleUrl: string;

  it('serves a schedule’s shifts to anyone holding its URL, as text/calendar', async () => {
    const start = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
    const created = await owner.post<{ id: string }>('/api/schedules', {
      name: 'ops',
      time_zone: 'America/New_York',
      layers: [
        {
          members: [
            { type: 'user', id: ada },
            { type: 'user', id: grace },
          ],
          start: `${start}T09:00`,
          turn: { unit: 'day', count: 1 },
        },
      ],
    });
    scheduleId = created.body.id;
    const res = await viewer.get<{ url: string }>(`/api/schedules/${scheduleId}/calendar-url`);
    expect(res.status).toBe(200);
    scheduleUrl = res.body.url;
    expect(scheduleUrl).toMatch(/\/api\/calendars\/[\w-]+\.[\w-]+\.ics$/);
    const body = await feed(scheduleUrl);
    expect(body.status).toBe(200);
    expect(body.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    const { name, events } = parseFeed(body.text);
    expect(name).toBe('On call: ops');
    // A week back and eight weeks ahead, cut at the first hand-off: about 59 daily shifts.
    expect(events.length).toBeGreaterThanOrEqual(58);
    expect(events.length).toBeLessThanOrEqual(61);
    const now = Date.now();
    const current = events.find((e) => e.start <= now && now < e.end);
    const onCall = await viewer.get<{ user_id: string }>(`/api/schedules/${scheduleId}/on-call`);
    const person = onCall.body.user_id === ada ? 'Ada Lovelace' : 'Grace Hopper';
    expect(current?.summary).toBe(`${person} on call (ops)`);
    for (const event of events.slice(1, -1))
      expect(event.end - event.start).toBeGreaterThanOrEqual(23 * 3_600_000);
  });

  it('serves a person’s own shifts on every schedule, overrides included', async () => {
    const startsAt = new Date(Date.now() + 10 * 86_400_000);
    startsAt.setUTCMinutes(0, 0, 0);
    const endsAt = new Date(startsAt.getTime() + 3 * 86_400_000);
    await owner.post(`/api/schedules/${scheduleId}/overrides`, {
      user_id: ada,
      starts_at: startsAt.toISOString(),
      ends_at: endsAt.toISOString(),
    });
    const res = await viewer.get<{ url: string }>('/api/on-call/calendar-url');
    expect(res.status).toBe(200);
    const { name, events } = parseFeed((await feed(res.body.url)).text);
    expect(name).toBe('My on-call shifts');
    expect(events.every((e) => e.summary === 'On call: ops')).toBe(true);
    expect(events.some((e) => e.start <= startsAt.getTime() && endsAt.getTime() <= e.end)).toBe(true);
    const all = parseFeed((await feed(scheduleUrl)).text).events;
    const ours = all.filter((e) => e.summary.startsWith('Ada Lovelace'));
    expect(events.map((e) => [e.start, e.end])).toEqual(ours.map((e) => [e.start, e.end]));
  });

  it('refuses a tampered or foreign URL, and stops serving a deleted schedule', async () => {
    const tampered = scheduleUrl.replace(/\.([\w-]{4})/, '.AAAA');
    expect((await feed(tampered)).status).toBe(404);
    expect((await server.resource.get('/api/calendars/nonsense', { token: null })).status).toBe(404);
    expect((await other.get(`/api/schedules/${scheduleId}/calendar-url`)).status).toBe(404);
    expect((await owner.delete(`/api/schedules/${scheduleId}`)).status).toBe(200);
    expect((await feed(scheduleUrl)).status).toBe(404);
  });
});
