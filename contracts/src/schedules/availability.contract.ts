import { z } from 'zod';
import { isTimeZone, ZRestriction } from './schedules.contract';

/** Bounds of a person's availability (decisions.md, "On-call"). */
export const AVAILABILITY_LIMITS = { windows: 14, outOfOfficeDays: 366 };

export const ZWorkingHours = z
  .strictObject({
    time_zone: z
      .string()
      .max(64)
      .refine(isTimeZone, { message: 'must be an IANA time zone, e.g. Europe/Paris' })
      .describe('IANA time zone of the windows'),
    windows: z
      .array(ZRestriction)
      .min(1)
      .max(AVAILABILITY_LIMITS.windows)
      .describe('Weekly windows of work, e.g. weekdays 09:00-18:00'),
  })
  .meta({ id: 'WorkingHours' });
export type WorkingHours = z.infer<typeof ZWorkingHours>;

export const ZOutOfOffice = z
  .object({
    id: z.uuid(),
    user_id: z.uuid(),
    delegate_id: z.uuid().nullable().describe('Who receives and may answer in their place (null: nobody)'),
    starts_at: z.string(),
    ends_at: z.string(),
    created_at: z.string(),
  })
  .meta({ id: 'OutOfOffice' });
export type OutOfOfficeView = z.infer<typeof ZOutOfOffice>;

export const ZAvailability = z
  .object({
    user_id: z.uuid(),
    working_hours: ZWorkingHours.nullable().describe('null: always available'),
    out_of_office: z.array(ZOutOfOffice).describe('Periods not yet over, by start'),
  })
  .meta({ id: 'Availability' });
export type AvailabilityView = z.infer<typeof ZAvailability>;

export const ZSetWorkingHoursInput = z.strictObject({
  working_hours: ZWorkingHours.nullable().describe('null: always available'),
});

const ZInstant = z.iso.datetime({ offset: true });

export const ZCreateOutOfOfficeInput = z
  .strictObject({
    starts_at: ZInstant,
    ends_at: ZInstant,
    delegate_id: z.uuid().optional().describe('A member who receives and may answer in your place'),
  })
  .refine((o) => Date.parse(o.ends_at) > Date.parse(o.starts_at), {
    message: 'must be after starts_at',
    path: ['ends_at'],
  })
  .refine(
    (o) =>
      Date.parse(o.ends_at) - Date.parse(o.starts_at) <= AVAILABILITY_LIMITS.outOfOfficeDays * 86_400_000,
    { message: `must be within ${AVAILABILITY_LIMITS.outOfOfficeDays} days of starts_at`, path: ['ends_at'] },
  );
export type CreateOutOfOfficeInput = z.infer<typeof ZCreateOutOfOfficeInput>;

export const ZOutOfOfficeId = z.strictObject({ id: z.uuid() });

const tags = ['on-call'];
const op = (
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: `/${string}`,
  summary: string,
  description?: string,
) =>
  ({
    openapi: { method, path, protect: true, tags, summary, ...(description ? { description } : {}) },
  }) as const;

export const availabilityMeta = {
  get: op('GET', '/me/availability', 'Your working hours and out-of-office periods in this organization'),
  setWorkingHours: op(
    'PUT',
    '/me/availability',
    'Set your working hours (null: always available)',
    'Outside them you are not notified while someone else the notification is for is available.',
  ),
  createOutOfOffice: {
    ...op(
      'POST',
      '/me/out-of-office',
      'Say you are away for a period, with a delegate',
      'While away, your notifications go to the delegate, who may answer in your place (the audit says on whose behalf); schedules put the delegate on call for you.',
    ),
    status: 201,
  },
  deleteOutOfOffice: op('DELETE', '/me/out-of-office/{id}', 'Delete one of your out-of-office periods'),
} as const;
