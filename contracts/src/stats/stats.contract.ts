import { z } from 'zod';

const ZCount = z.number().int().min(0);

export const ZStats = z
  .object({
    total: ZCount.describe('Every item of the organization, archived ones included'),
    open: ZCount,
    answered: ZCount,
    dismissed: ZCount,
    archived: ZCount,
    by_level: z.record(z.string(), ZCount).describe('Every level, 0 included'),
    by_channel: z
      .record(z.string(), ZCount)
      .describe('Every channel by name, 0 included; items without a channel under "(none)"'),
  })
  .meta({ id: 'Stats' });
export type StatsView = z.infer<typeof ZStats>;

const tags = ['stats'];
export const statsMeta = {
  get: {
    openapi: {
      method: 'GET',
      path: '/stats',
      protect: true,
      tags,
      summary: 'Item counts by status, level and channel',
    },
  },
} as const;
