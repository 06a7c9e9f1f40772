import { z } from 'zod';
import { ZOverride } from './schedules.contract';

const ZSpan = z
  .strictObject({ starts_at: z.iso.datetime({ offset: true }), ends_at: z.iso.datetime({ offset: true }) })
  .refine((s) => Date.parse(s.ends_at) > Date.parse(s.starts_at), {
    message: 'must be after starts_at',
    path: ['ends_at'],
  })
  .refine((s) => Date.parse(s.ends_at) - Date.parse(s.starts_at) <= 31 * 86_400_000, {
    message: 'must be within 31 days of starts_at',
    path: ['ends_at'],
  });

export const ZSwapInput = z.strictObject({
  id: z.uuid().describe('The schedule'),
  with_user_id: z.uuid().describe('The member you swap with'),
  mine: ZSpan.describe('A span you are on call for: they take it'),
  theirs: ZSpan.describe('A span they are on call for: you take it'),
});
export type SwapInput = z.infer<typeof ZSwapInput>;

export const ZSwap = z
  .object({
    given: ZOverride.describe('The override putting them on call for your span'),
    taken: ZOverride.describe('The override putting you on call for theirs'),
  })
  .meta({ id: 'ShiftSwap' });
export type SwapView = z.infer<typeof ZSwap>;

const tags = ['schedules'];

export const swapMeta = {
  swap: {
    openapi: {
      method: 'POST',
      path: '/schedules/{id}/swaps',
      protect: true,
      tags,
      summary: 'Swap shifts with another member',
      description:
        'Two overrides in one change: they are on call for your span, you for theirs. Each span must be wholly the person’s (overrides included).',
    },
    status: 201,
  },
} as const;
