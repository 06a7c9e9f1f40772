import { z } from 'zod';
import { itemLevels, itemStatuses, personalApps } from '../enums';
import type { Meta } from '../meta';

const HHMM = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;
const ZTime = z.string().regex(HHMM, { error: 'must be HH:MM (24 h)' });

/** An IANA zone name (Area/Location, or UTC): abbreviations such as IST mean different zones to different systems. */
const ZONE_NAME = /^(UTC|[A-Za-z]+(?:\/[A-Za-z0-9_+-]+)+)$/;
const isTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return ZONE_NAME.test(zone);
  } catch {
    return false;
  }
};

export const ZPreferences = z
  .object({
    quiet_hours_enabled: z.boolean(),
    quiet_hours_start: z.string(),
    quiet_hours_end: z
      .string()
      .describe('May be earlier than the start: quiet hours then wrap past midnight'),
    quiet_hours_allow_levels: z.string().describe('Comma-separated levels pushed even in quiet hours'),
    timezone: z.string().describe('IANA time zone the quiet hours are read in'),
    muted_channels: z.array(z.uuid()).describe('Channels of this organization that never push'),
    muted_apps: z
      .array(z.enum(personalApps))
      .describe('Apps that never message this person directly (their DMs, their phone); their links stay'),
    min_level: z
      .enum(itemLevels)
      .describe('Push only items at or above this level (info < success < warning < error)'),
  })
  .meta({ id: 'NotificationPreferences' });
export type PreferencesView = z.infer<typeof ZPreferences>;

export const ZUpdatePreferencesInput = z.strictObject({
  quiet_hours_enabled: z.boolean().optional(),
  quiet_hours_start: ZTime.optional(),
  quiet_hours_end: ZTime.optional(),
  quiet_hours_allow_levels: z
    .string()
    .max(100)
    .refine(
      (list) =>
        list === '' ||
        list.split(',').every((level) => (itemLevels as readonly string[]).includes(level.trim())),
      { error: `a comma-separated list of ${itemLevels.join(', ')}` },
    )
    .transform((list) =>
      list
        .split(',')
        .map((level) => level.trim())
        .filter(Boolean)
        .join(','),
    )
    .optional(),
  timezone: z
    .string()
    .max(64)
    .refine(isTimeZone, { error: 'not an IANA time zone (Area/Location, or UTC)' })
    .optional(),
  muted_channels: z.array(z.uuid()).max(500).optional(),
  muted_apps: z
    .array(z.enum(personalApps))
    .max(personalApps.length)
    .transform((apps) => [...new Set(apps)])
    .optional(),
  min_level: z.enum(itemLevels).optional(),
});
export type UpdatePreferencesInput = z.infer<typeof ZUpdatePreferencesInput>;

/** A browser's push subscription, as PushSubscription.toJSON() gives it. */
export const ZWebPushSubscription = z.object({
  endpoint: z.url({ protocol: /^https$/ }),
  keys: z.object({ p256dh: z.string().min(1), auth: z.string().min(1) }),
});

export const ZRegisterDeviceInput = z
  .strictObject({
    device_token: z.string().min(1).max(4096).describe('For webpush: the subscription JSON string'),
    platform: z.enum(['mobile', 'webpush']),
  })
  .superRefine((input, ctx) => {
    if (input.platform !== 'webpush') return;
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(input.device_token);
    } catch {
      // reported below
    }
    if (!ZWebPushSubscription.safeParse(parsed).success) {
      ctx.addIssue({
        code: 'custom',
        path: ['device_token'],
        message:
          'a webpush token is the subscription JSON: {"endpoint":"https://…","keys":{"p256dh":…,"auth":…}}',
      });
    }
  });
export type RegisterDeviceInput = z.infer<typeof ZRegisterDeviceInput>;

export const ZUnregisterDeviceInput = z.strictObject({ device_token: z.string().min(1).max(4096) });

export const ZDevice = z
  .object({
    id: z.uuid(),
    platform: z.enum(['mobile', 'webpush']),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Device' });
export type DeviceView = z.infer<typeof ZDevice>;

export const ZPushConfig = z
  .object({
    webpush: z.object({ enabled: z.boolean(), vapid_public_key: z.string().nullable() }),
    mobile: z.object({
      enabled: z.boolean(),
      api_key: z.string().nullable(),
      project_id: z.string().nullable(),
      app_id: z.string().nullable(),
      messaging_sender_id: z.string().nullable(),
    }),
  })
  .meta({ id: 'PushConfig' });

export const ZPushAnswerInput = z.strictObject({
  token: z.string().min(1).max(2000).describe("The notification's answer token (payload.answer.token)"),
  choice: z
    .number()
    .int()
    .min(0)
    .max(7)
    .describe("The index of the action pressed, in the order of the payload's actions"),
});
export type PushAnswerInput = z.infer<typeof ZPushAnswerInput>;

export const ZPushAnswer = z
  .object({
    item_id: z.uuid(),
    status: z
      .enum(itemStatuses)
      .describe('The item after the answer: open while it still collects approvals'),
    answer: z.string().describe('The label of the action that answered'),
  })
  .meta({ id: 'PushAnswer' });
export type PushAnswerView = z.infer<typeof ZPushAnswer>;

const tags = ['push'];
const protect = true;
export const pushMeta = {
  register: {
    openapi: {
      method: 'POST',
      path: '/push/register',
      protect,
      tags,
      summary: "Register this person's device for pushes of the organization (a session; items.read)",
      description: 'Registering a token again moves it to the caller and the current organization.',
    },
  },
  unregister: {
    openapi: {
      method: 'POST',
      path: '/push/unregister',
      protect,
      tags,
      summary: 'Forget one of your devices (either platform)',
    },
  },
  devices: {
    openapi: {
      method: 'GET',
      path: '/push/devices',
      protect,
      tags,
      summary: 'Your devices registered in this organization',
    },
  },
  config: {
    openapi: {
      method: 'GET',
      path: '/push/config',
      protect: false,
      tags,
      summary: 'Public client settings for subscribing (no token needed)',
    },
  },
  answer: {
    openapi: {
      method: 'POST',
      path: '/push/answer',
      protect: false,
      tags,
      summary: "Answer an item from a notification's action button (the token is the credential)",
      description:
        "A push of an item whose form is one yes/no, choice or checkbox field carries its choices as actions and a token signed for the person it was sent to; the service worker posts the pressed action here. The token works once (409 after), until the item's deadline or 7 days (410 after); a token that is not ours is a 400. The answer counts as the person's own (answered_via: push).",
    },
  },
  preferences: {
    openapi: {
      method: 'GET',
      path: '/me/preferences',
      protect,
      tags,
      summary: 'Your notification preferences (push, mail, direct messages and texts)',
    },
  },
  updatePreferences: {
    openapi: {
      method: 'PUT',
      path: '/me/preferences',
      protect,
      tags,
      summary: 'Change your notification preferences (fields left out stay as they are)',
      description:
        'Quiet hours, the minimum level and muted channels apply to every way an item reaches you (push, mail, direct messages in Slack, Telegram and Discord, SMS and WhatsApp texts); muted_apps silences the apps named without unlinking them. muted_channels replaces the mutes of this organization; an id that is not one of its channels is a 400.',
    },
  },
} satisfies Record<string, Meta>;
