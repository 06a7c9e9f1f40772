import { z } from 'zod';
import { ZEscalation } from '../assignment/assignment.contract';
import { ZRequireReauth } from '../items/reauth.contract';

/** Channel and template names: lowercase, URL- and tool-friendly (decisions.md). */
export const NAME_PATTERN = /^[a-z0-9][a-z0-9._-]*$/;
export const ZName = z.string().min(1).max(64).regex(NAME_PATTERN, {
  error: 'must be lowercase letters, digits, ".", "_" or "-", starting with a letter or digit',
});

export const channelModes = ['open', 'restricted'] as const;

export const ZChannel = z
  .object({
    id: z.uuid(),
    name: z.string(),
    mode: z.enum(channelModes),
    description: z.string(),
    escalation: ZEscalation.describe('The escalation policy of its items that name none'),
    require_reauth: ZRequireReauth.nullable().describe(
      'The fresh verification its items require when they name none',
    ),
    created_at: z.string(),
  })
  .meta({ id: 'Channel' });
export type ChannelView = z.infer<typeof ZChannel>;

export const ZCreateChannelInput = z.strictObject({
  name: ZName,
  mode: z
    .enum(channelModes)
    .describe('open: every member sees its items; restricted: reserved for team scoping'),
  description: z.string().max(500).optional(),
  escalation: ZEscalation.optional().describe(
    'Default escalation policy of its items (an item or its template may name its own, [] for none)',
  ),
  require_reauth: ZRequireReauth.optional().describe(
    'Answering its items needs a fresh verification (an item or its template may name its own)',
  ),
});
export type CreateChannelInput = z.infer<typeof ZCreateChannelInput>;

const tags = ['channels'];
export const channelMeta = {
  list: {
    openapi: { method: 'GET', path: '/channels', protect: true, tags, summary: 'List channels by name' },
  },
  create: {
    status: 201,
    openapi: { method: 'POST', path: '/channels', protect: true, tags, summary: 'Create a channel' },
  },
} as const;
