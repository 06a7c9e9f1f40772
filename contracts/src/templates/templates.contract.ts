import { z } from 'zod';
import { ZName } from '../channels/channels.contract';
import { ZItemFields } from '../items/item.contract';

export const ZTemplate = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    fields: z
      .record(z.string(), z.unknown())
      .describe('Item-creation fields filled in when a request leaves them out'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Template' });
export type TemplateView = z.infer<typeof ZTemplate>;

/** Any subset of the item-creation fields (title included), with the same rules; unknown keys refused. */
export const ZTemplateFields = ZItemFields.partial();

export const ZUpsertTemplateInput = z.strictObject({
  name: ZName,
  description: z.string().max(500).optional(),
  fields: ZTemplateFields,
});
export type UpsertTemplateInput = z.infer<typeof ZUpsertTemplateInput>;

export const ZTemplateName = z.strictObject({ name: ZName });

const tags = ['templates'];
export const templateMeta = {
  list: {
    openapi: { method: 'GET', path: '/templates', protect: true, tags, summary: 'List templates by name' },
  },
  upsert: {
    openapi: {
      method: 'POST',
      path: '/templates',
      protect: true,
      tags,
      summary: 'Create a template, or replace the one with that name (200 either way)',
    },
  },
  delete: {
    openapi: {
      method: 'DELETE',
      path: '/templates/{name}',
      protect: true,
      tags,
      summary: 'Delete a template (answers the deleted template)',
    },
  },
} as const;
