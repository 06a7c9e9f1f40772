import { z } from 'zod';
import { actorTypes } from '../enums';
import { ZPageLimit } from '../paging';

export const ZAuditEntry = z
  .object({
    id: z.uuid(),
    item_id: z
      .uuid()
      .nullable()
      .describe('Null for organization-level changes (channels, templates, settings)'),
    action: z.string(),
    actor_type: z.enum(actorTypes),
    actor_id: z.uuid().nullable(),
    data: z.record(z.string(), z.unknown()),
    created_at: z.string(),
  })
  .meta({ id: 'AuditEntry' });
export type AuditEntryView = z.infer<typeof ZAuditEntry>;

export const ZListAuditInput = z.strictObject({
  limit: ZPageLimit,
  cursor: z.string().max(200).optional(),
  item_id: z.uuid().optional(),
});
export type ListAuditInput = z.infer<typeof ZListAuditInput>;

export const ZAuditPage = z.object({ entries: z.array(ZAuditEntry), next_cursor: z.string().nullable() });

const tags = ['audit'];
export const auditMeta = {
  list: {
    openapi: {
      method: 'GET',
      path: '/audit',
      protect: true,
      tags,
      summary: 'Audit entries, newest first (cursor-paginated)',
    },
  },
} as const;
