import { z } from 'zod';
import { ZName } from '../channels/channels.contract';

/** Bounds of a schedule (decisions.md, "On-call"). */
export const SCHEDULE_LIMITS = {
  layers: 10,
  members: 50,
  restrictions: 14,
  overrideDays: 366,
  windowDays: 90,
};

export const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof weekdays)[number];

/** True when `zone` is an IANA time zone this runtime knows (`Europe/Paris`, `UTC`). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone.length > 0;
  } catch {
    return false;
  }
}

const ZTimeZone = z
  .string()
  .max(64)
  .refine(isTimeZone, { message: 'must be an IANA time zone, e.g. Europe/Paris' })
  .describe('IANA time zone of hand-offs and restrictions, e.g. Europe/Paris');

const ZClock = z
  .string()
  .regex(/^(?:[01]\d|2[0-3]):[0-5]\d$/, { message: 'must be a time of day HH:MM' })
  .describe('Wall-clock time of day in the schedule’s zone, HH:MM');

const ZLocalStart = z
  .string()
  .regex(/^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d$/, {
    message: 'must be a local date and time YYYY-MM-DDTHH:MM',
  })
  .refine(
    (text) =>
      !Number.isNaN(Date.parse(`${text}:00Z`)) && new Date(`${text}:00Z`).toISOString().startsWith(text),
    {
      message: 'must be a real calendar date',
    },
  )
  .describe(
    'First hand-off, as wall-clock date and time in the schedule’s zone (no offset); its time of day is the hand-off time',
  );

export const ZLayerMember = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('user'), id: z.uuid() }),
    z.strictObject({ type: z.literal('team'), id: z.uuid() }),
  ])
  .describe('A member, or a team whose members take turns in place of this entry');

const TURN_MAX = { hour: 24 * 366, day: 366, week: 52 } as const;

export const ZTurn = z
  .strictObject({ unit: z.enum(['hour', 'day', 'week']), count: z.number().int().min(1) })
  .refine((turn) => turn.count <= TURN_MAX[turn.unit], { message: 'at most 366 days', path: ['count'] })
  .describe(
    'Length of one person’s turn: days and weeks hand off at the same wall-clock time (a turn across a daylight-saving change is an hour shorter or longer), hours are elapsed time',
  );

export const ZRestriction = z
  .strictObject({
    days: z
      .array(z.enum(weekdays))
      .min(1)
      .max(7)
      .refine((list) => new Set(list).size === list.length, { message: 'listed twice' })
      .describe('Days the window starts on'),
    from: ZClock,
    to: ZClock.describe('End of the window (a time before `from` ends on the next day)'),
  })
  .refine((window) => window.from !== window.to, { message: 'must differ from `from`', path: ['to'] })
  .meta({ id: 'ScheduleRestriction' });
export type Restriction = z.infer<typeof ZRestriction>;

export const ZLayer = z
  .strictObject({
    name: z.string().max(100).default(''),
    members: z
      .array(ZLayerMember)
      .min(1)
      .max(SCHEDULE_LIMITS.members)
      .refine((list) => new Set(list.map((m) => `${m.type}:${m.id}`)).size === list.length, {
        message: 'listed twice',
      })
      .describe('Who takes turns, in order'),
    start: ZLocalStart,
    turn: ZTurn,
    restrictions: z
      .array(ZRestriction)
      .max(SCHEDULE_LIMITS.restrictions)
      .default([])
      .describe('Windows when the layer is on call (none: always), e.g. weekdays 09:00-18:00'),
  })
  .meta({ id: 'ScheduleLayer' });
export type Layer = z.infer<typeof ZLayer>;

export const ZSchedule = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    time_zone: z.string(),
    layers: z.array(ZLayer).describe('In order of precedence: the first layer with someone on call decides'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Schedule' });
export type ScheduleView = z.infer<typeof ZSchedule>;

const scheduleFields = {
  name: ZName,
  description: z.string().max(500).optional(),
  time_zone: ZTimeZone,
  layers: z.array(ZLayer).min(1).max(SCHEDULE_LIMITS.layers),
};

export const ZCreateScheduleInput = z.strictObject(scheduleFields);
export type CreateScheduleInput = z.infer<typeof ZCreateScheduleInput>;

export const ZReplaceScheduleInput = z.strictObject({ id: z.uuid(), ...scheduleFields });
export type ReplaceScheduleInput = z.infer<typeof ZReplaceScheduleInput>;

export const ZScheduleId = z.strictObject({ id: z.uuid() });

const ZInstant = z.iso.datetime({ offset: true });

export const ZOnCallInput = z.strictObject({
  id: z.uuid(),
  at: ZInstant.optional().describe('The instant asked about (default: now), ISO 8601 with offset'),
});

export const ZOnCall = z
  .object({
    schedule_id: z.uuid(),
    at: z.string(),
    user_id: z.uuid().nullable().describe('Who is on call (null: nobody)'),
    source: z.enum(['override', 'layer']).nullable(),
    layer: z.number().int().nullable().describe('Index of the deciding layer'),
    override_id: z.uuid().nullable(),
  })
  .meta({ id: 'OnCall' });
export type OnCallView = z.infer<typeof ZOnCall>;

export const ZOverride = z
  .object({
    id: z.uuid(),
    schedule_id: z.uuid(),
    user_id: z.uuid(),
    starts_at: z.string(),
    ends_at: z.string(),
    created_at: z.string(),
  })
  .meta({ id: 'ScheduleOverride' });
export type OverrideView = z.infer<typeof ZOverride>;

export const ZCreateOverrideInput = z
  .strictObject({
    id: z.uuid().describe('The schedule'),
    user_id: z.uuid().describe('Who is on call instead, for the period'),
    starts_at: ZInstant,
    ends_at: ZInstant,
  })
  .refine((o) => Date.parse(o.ends_at) > Date.parse(o.starts_at), {
    message: 'must be after starts_at',
    path: ['ends_at'],
  })
  .refine(
    (o) => Date.parse(o.ends_at) - Date.parse(o.starts_at) <= SCHEDULE_LIMITS.overrideDays * 86_400_000,
    {
      message: `must be within ${SCHEDULE_LIMITS.overrideDays} days of starts_at`,
      path: ['ends_at'],
    },
  );
export type CreateOverrideInput = z.infer<typeof ZCreateOverrideInput>;

export const ZOverrideId = z.strictObject({ id: z.uuid(), override_id: z.uuid() });

export const ZShiftsInput = z.strictObject({
  id: z.uuid(),
  from: ZInstant.optional().describe('Start of the span (default: now)'),
  days: z.coerce
    .number()
    .int()
    .min(1)
    .max(SCHEDULE_LIMITS.windowDays)
    .default(14)
    .describe(`Length of the span in days (default 14, at most ${SCHEDULE_LIMITS.windowDays})`),
});

export const ZShift = z
  .object({
    user_id: z.uuid(),
    name: z.string().describe('The person’s name, else their email address'),
    starts_at: z.string(),
    ends_at: z.string(),
  })
  .meta({ id: 'Shift' });
export type ShiftView = z.infer<typeof ZShift>;

export const ZCalendarUrl = z
  .object({
    url: z.string().describe('A signed iCalendar feed URL (RFC 5545): anyone holding it reads the feed'),
  })
  .meta({ id: 'CalendarUrl' });

const tags = ['schedules'];
const op = (
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: `/${string}`,
  summary: string,
  description?: string,
) =>
  ({
    openapi: { method, path, protect: true, tags, summary, ...(description ? { description } : {}) },
  }) as const;

export const scheduleMeta = {
  list: op('GET', '/schedules', 'List on-call schedules by name'),
  create: { ...op('POST', '/schedules', 'Create an on-call schedule'), status: 201 },
  get: op('GET', '/schedules/{id}', 'Get a schedule'),
  replace: op('PUT', '/schedules/{id}', 'Replace a schedule’s name, description, zone and layers'),
  delete: op(
    'DELETE',
    '/schedules/{id}',
    'Delete a schedule and its overrides (answers the deleted schedule)',
  ),
  onCall: op(
    'GET',
    '/schedules/{id}/on-call',
    'Who is on call at an instant',
    'An override covering the instant wins (the latest created); else the first layer whose turn and restrictions cover it.',
  ),
  listOverrides: op('GET', '/schedules/{id}/overrides', 'List a schedule’s overrides by start'),
  createOverride: {
    ...op('POST', '/schedules/{id}/overrides', 'Put someone on call for a period, over the layers'),
    status: 201,
  },
  deleteOverride: op('DELETE', '/schedules/{id}/overrides/{override_id}', 'Delete an override'),
  shifts: op(
    'GET',
    '/schedules/{id}/shifts',
    'Who is on call over a span, shift by shift',
    'Consecutive stretches with one person on call (overrides included); stretches with nobody are left out.',
  ),
  calendarUrl: op(
    'GET',
    '/schedules/{id}/calendar-url',
    'The signed iCalendar feed URL of a schedule’s shifts',
    'The feed (text/calendar) covers a week back and eight weeks ahead, one event per shift, named after who is on call.',
  ),
  myCalendarUrl: op(
    'GET',
    '/on-call/calendar-url',
    'The signed iCalendar feed URL of the caller’s own shifts on every schedule',
  ),
} as const;
