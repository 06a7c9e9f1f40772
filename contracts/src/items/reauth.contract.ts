import { z } from 'zod';

export const reauthMethods = ['passkey', 'any'] as const;
export const REAUTH_DEFAULT_MINUTES = 5;

/**
 * A risky decision: answering needs the person's fresh verification. `passkey`: a passkey used
 * within `within_minutes` (a passkey sign-in, or the dashboard's passkey prompt); `any`: a passkey
 * or a fresh sign-in of any kind (magic link, identity provider). Only the dashboard can answer
 * such an item: email, Slack and push point to its page, and agents' credentials are refused.
 */
export const ZRequireReauth = z
  .strictObject({
    method: z.enum(reauthMethods).describe('passkey: a passkey only; any: a passkey or a fresh sign-in'),
    within_minutes: z
      .number()
      .int()
      .min(1)
      .max(1440)
      .default(REAUTH_DEFAULT_MINUTES)
      .describe('How recent the verification must be'),
  })
  .meta({ id: 'RequireReauth' });
export type RequireReauth = z.output<typeof ZRequireReauth>;
