import { z } from 'zod';
import { phoneChannels } from '../enums';
import type { Meta } from '../meta';

/** A phone number in E.164 form: `+`, the country code, up to 15 digits in all. */
const E164 = /^\+[1-9]\d{6,14}$/;
const phoneNumber = z.string().regex(E164, { error: 'must be a phone number in E.164 form (+15551234567)' });

export const ZTwilioConnection = z
  .object({
    account_sid: z.string(),
    sms_from: z.string().nullable().describe('The number SMS are sent from'),
    whatsapp_from: z.string().nullable().describe('The WhatsApp sender (a number) messages are sent from'),
    inbound_url: z
      .string()
      .describe("The URL to set as the numbers' incoming-message webhook (HTTP POST) in Twilio"),
    connected_at: z.string(),
  })
  .meta({ id: 'TwilioConnection' });
export type TwilioConnectionView = z.infer<typeof ZTwilioConnection>;

export const ZTwilioStatus = z
  .object({ connection: ZTwilioConnection.nullable() })
  .meta({ id: 'TwilioStatus' });

export const ZPutTwilioConnectionInput = z
  .strictObject({
    account_sid: z.string().regex(/^AC[0-9a-f]{32}$/, { error: 'must be a Twilio account SID (AC…)' }),
    auth_token: z.string().min(16).max(128).describe("The account's auth token (stored encrypted)"),
    sms_from: phoneNumber.nullable().default(null),
    whatsapp_from: phoneNumber.nullable().default(null),
  })
  .refine((input) => input.sms_from || input.whatsapp_from, {
    error: 'name an SMS number, a WhatsApp sender, or both',
    path: ['sms_from'],
  });
export type PutTwilioConnectionInput = z.infer<typeof ZPutTwilioConnectionInput>;

export const ZPhone = z
  .object({
    phone: z.string(),
    channel: z.enum(phoneChannels),
    verified: z.boolean(),
    opted_out: z.boolean().describe('The person replied STOP: nothing is sent until they reply START'),
  })
  .meta({ id: 'Phone' });
export type PhoneView = z.infer<typeof ZPhone>;

export const ZPhoneStatus = z.object({ phone: ZPhone.nullable() }).meta({ id: 'PhoneStatus' });

export const ZPutPhoneInput = z.strictObject({
  phone: phoneNumber,
  channel: z.enum(phoneChannels).default('sms').describe('Where items reach this phone'),
});
export type PutPhoneInput = z.infer<typeof ZPutPhoneInput>;

export const ZVerifyPhoneInput = z.strictObject({
  code: z.string().regex(/^\d{6}$/, { error: 'must be the 6 digits that were sent' }),
});

const tags = ['twilio'];
const protect = true;
const unavailable = 'Without Twilio configuration: 503 twilio_not_configured.';
const path = <P extends string>(p: P) => `/twilio${p}` as const;
export const twilioMeta = {
  status: {
    openapi: {
      method: 'GET',
      path: path('/connection'),
      protect,
      tags,
      summary: "The organization's Twilio account, if connected (org.manage)",
      description: unavailable,
    },
  },
  connect: {
    openapi: {
      method: 'PUT',
      path: path('/connection'),
      protect,
      tags,
      summary:
        "Connect (or replace) the organization's Twilio account: SID, auth token and sender numbers (org.manage; plan gate: twilio_accounts)",
      description: `The credentials are checked with Twilio first (400 when it refuses them). 402 on a plan without SMS (Free). ${unavailable}`,
    },
  },
  disconnect: {
    openapi: {
      method: 'DELETE',
      path: path('/connection'),
      protect,
      tags,
      summary:
        "Disconnect the Twilio account: its token, people's numbers and message records go (org.manage)",
      description: unavailable,
    },
  },
  phone: {
    openapi: {
      method: 'GET',
      path: path('/phone'),
      protect,
      tags,
      summary: "The person's phone number for items by SMS or WhatsApp (a person's session)",
      description: unavailable,
    },
  },
  putPhone: {
    openapi: {
      method: 'PUT',
      path: path('/phone'),
      protect,
      tags,
      summary: 'Set the person’s phone number: a 6-digit code is sent to it, valid 10 minutes',
      description: `The number gets items only once verified (POST /twilio/phone/verify). 409 when no Twilio account is connected or another member uses the number; 400 when the organization has no sender for the channel; 429 within 30 seconds of the last code. ${unavailable}`,
    },
  },
  verifyPhone: {
    openapi: {
      method: 'POST',
      path: path('/phone/verify'),
      protect,
      tags,
      summary: 'Verify the person’s phone number with the code it was sent',
      description: `400 for a wrong code; 410 phone_code_expired once it expired or was tried 5 times. ${unavailable}`,
    },
  },
  deletePhone: {
    openapi: {
      method: 'DELETE',
      path: path('/phone'),
      protect,
      tags,
      summary: 'Forget the person’s phone number',
      description: unavailable,
    },
  },
} satisfies Record<string, Meta>;
