import { z } from 'zod';
import type { Meta } from '../meta';

export const ZInboundWebhook = z
  .object({
    id: z.uuid(),
    name: z.string(),
    created_by: z.uuid().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'InboundWebhook' });
export type InboundWebhookView = z.infer<typeof ZInboundWebhook>;

export const ZCreatedInboundWebhook = ZInboundWebhook.extend({
  token: z.string().describe('Shown this once; only its hash is stored'),
  url: z.string().describe('POST item-creation payloads here (no bearer token needed)'),
}).meta({ id: 'CreatedInboundWebhook' });

export const ZCreateInboundWebhookInput = z.strictObject({ name: z.string().trim().min(1).max(100) });
export const ZInboundWebhookId = z.strictObject({ id: z.uuid() });

const tags = ['inbound webhooks'];
const protect = true;
export const inboundMeta = {
  list: {
    openapi: {
      method: 'GET',
      path: '/inbound-webhooks',
      protect,
      tags,
      summary: 'List inbound webhooks (webhooks.manage)',
    },
  },
  create: {
    status: 201,
    oneTimeSecret: true,
    openapi: {
      method: 'POST',
      path: '/inbound-webhooks',
      protect,
      tags,
      summary: 'Create an inbound webhook (webhooks.manage); its token and URL are shown once',
    },
  },
  deliver: {
    status: 201,
    openapi: {
      method: 'POST',
      path: '/webhooks/inbound/{token}',
      protect: false,
      tags,
      summary: 'Create an item from an external system (the token of an inbound webhook; no bearer)',
      successDescription: 'The item',
      errorResponses: { 402: 'Plan limit reached' },
      description:
        'The body is that of POST /items. An unknown token is a 404 whatever the body; the item is created as the inbound webhook (created_by type agent), counted in the monthly quota, and Idempotency-Key is honoured.',
    },
  },
  remove: {
    openapi: {
      method: 'DELETE',
      path: '/inbound-webhooks/{id}',
      protect,
      tags,
      summary: 'Delete an inbound webhook: its URL stops working at once',
    },
  },
} satisfies Record<string, Meta>;
