import { z } from 'zod';
import { emailDigestPeriods, itemLevels } from '../enums';
import type { Meta } from '../meta';

export const ZEmailSettings = z
  .object({
    enabled: z
      .boolean()
      .describe(
        'Mail me items of this organization (off until turned on; quiet hours, minimum level and mutes apply)',
      ),
    digest: z
      .enum(emailDigestPeriods)
      .describe('Batch items below digest_below into one mail per period (off: every item its own mail)'),
    digest_below: z
      .enum(itemLevels)
      .describe('Items below this level wait for the digest (info < success < warning < error)'),
    available: z.boolean().describe('Whether this server sends mail at all (SMTP configured)'),
  })
  .meta({ id: 'EmailSettings' });
export type EmailSettingsView = z.infer<typeof ZEmailSettings>;

export const ZUpdateEmailSettingsInput = z.strictObject({
  enabled: z.boolean().optional(),
  digest: z.enum(emailDigestPeriods).optional(),
  digest_below: z.enum(itemLevels).optional(),
});
export type UpdateEmailSettingsInput = z.infer<typeof ZUpdateEmailSettingsInput>;

const tags = ['email'];
export const emailMeta = {
  settings: {
    openapi: {
      method: 'GET',
      path: '/me/email',
      protect: true,
      tags,
      summary: 'Your email channel in this organization (mail on or off, digest)',
    },
  },
  updateSettings: {
    openapi: {
      method: 'PUT',
      path: '/me/email',
      protect: true,
      tags,
      summary: 'Change your email channel in this organization (fields left out stay as they are)',
    },
  },
} satisfies Record<string, Meta>;
