import { z } from 'zod';

export const SETTING_VALUE_BYTES = 16 * 1024;

export const ZSetting = z
  .object({ key: z.string(), value: z.unknown(), updated_at: z.string() })
  .meta({ id: 'Setting' });
export type SettingView = z.infer<typeof ZSetting>;

const ZKey = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9._-]+$/, { error: 'must be letters, digits, ".", "_" or "-"' });

export const ZPutSettingInput = z.strictObject({
  key: ZKey,
  value: z
    .unknown()
    .refine((v) => v !== undefined, 'Required')
    .refine((v) => Buffer.byteLength(JSON.stringify(v) ?? '') <= SETTING_VALUE_BYTES, {
      message: `must be at most ${SETTING_VALUE_BYTES} bytes as JSON`,
    })
    .describe('Any JSON value'),
});
export type PutSettingInput = z.infer<typeof ZPutSettingInput>;

const tags = ['settings'];
export const settingMeta = {
  list: {
    openapi: { method: 'GET', path: '/settings', protect: true, tags, summary: 'List settings by key' },
  },
  put: {
    openapi: {
      method: 'PUT',
      path: '/settings/{key}',
      protect: true,
      tags,
      summary: 'Set a value (created or replaced)',
    },
  },
} as const;
