import { z } from 'zod';
import { deliveryKinds } from '../enums';
import { EVENT_KINDS } from '../items/event-kinds';
import type { Meta } from '../meta';
import { ZPageLimit } from '../paging';

export const ZWebhook = z
  .object({
    id: z.uuid(),
    name: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    active: z.boolean().describe('false once the receiver answered 410 Gone'),
    disabled_reason: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'Webhook' });
export type WebhookView = z.infer<typeof ZWebhook>;

export const ZCreatedWebhook = ZWebhook.extend({
  secret: z.string().optional().describe('Generated when none was given: shown this once'),
}).meta({ id: 'CreatedWebhook' });
export type CreatedWebhookView = z.infer<typeof ZCreatedWebhook>;

const ZHttpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .max(2048)
  .describe('Private and loopback addresses are refused when a delivery connects');

export const ZCreateWebhookInput = z.strictObject({
  name: z.string().trim().min(1).max(100),
  url: ZHttpUrl,
  events: z
    .array(z.enum([...EVENT_KINDS, '*']))
    .min(1)
    .transform((list) => (list.includes('*') ? ['*'] : [...new Set(list)]))
    .describe(`Event kinds to deliver: ${EVENT_KINDS.join(', ')}, or * for all`),
  secret: z
    .string()
    .min(16)
    .max(256)
    .optional()
    .describe('HMAC key of X-Service-Signature; generated (and returned once) when absent'),
});
export type CreateWebhookInput = z.infer<typeof ZCreateWebhookInput>;

export const ZWebhookRef = z.strictObject({ id: z.uuid() });

export const ZDelivery = z
  .object({
    id: z.uuid(),
    delivery_id: z.uuid().describe('X-Service-Delivery: the same for every attempt of one delivery'),
    kind: z
      .enum(deliveryKinds)
      .describe(
        'callback or webhook (HTTP), email (a mail: url is mailto:, status_code the SMTP reply), slack (a Slack Web API call: url is the method), telegram (a Bot API call: url is the method, without the token), discord (a REST call: url is the route), teams (a Bot Connector call: url is the activity route at the conversation service URL)',
      ),
    webhook_id: z.uuid().nullable(),
    item_id: z.uuid().nullable(),
    event: z.string(),
    url: z.string(),
    attempt: z.number().int(),
    status_code: z.number().int().nullable(),
    error: z.string().nullable(),
    duration_ms: z.number().int().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'DeliveryAttempt' });
export type DeliveryView = z.infer<typeof ZDelivery>;

export const ZListDeliveriesInput = z.strictObject({
  webhook_id: z.uuid().optional(),
  item_id: z.uuid().optional(),
  limit: ZPageLimit,
  cursor: z.string().max(200).optional(),
});
export type ListDeliveriesInput = z.infer<typeof ZListDeliveriesInput>;

export const ZDeliveryList = z
  .object({ deliveries: z.array(ZDelivery), next_cursor: z.string().nullable() })
  .meta({ id: 'DeliveryAttemptList' });

const tags = ['webhooks'];
const protect = true;
export const webhookMeta = {
  list: {
    openapi: {
      method: 'GET',
      path: '/webhooks',
      protect,
      tags,
      summary: 'Outbound webhooks (webhooks.manage)',
    },
  },
  create: {
    status: 201,
    // A generated secret is in the answer: no Idempotency-Key replay (it would be stored again).
    oneTimeSecret: true,
    openapi: {
      method: 'POST',
      path: '/webhooks',
      protect,
      tags,
      summary: 'Create an outbound webhook (webhooks.manage; plan gate: webhooks)',
      description:
        'Each subscribed event is POSTed as {id, type, created_at, data: {item}}, signed with the secret (X-Service-Signature, Standard Webhooks headers), retried for about 24 h; a 410 disables the webhook.',
    },
  },
  delete: {
    openapi: {
      method: 'DELETE',
      path: '/webhooks/{id}',
      protect,
      tags,
      summary: 'Delete an outbound webhook (webhooks.manage); its pending deliveries stop',
    },
  },
  deliveries: {
    openapi: {
      method: 'GET',
      path: '/deliveries',
      protect,
      tags,
      summary:
        'Delivery attempts of webhooks, callbacks, mails and Slack messages, newest first (webhooks.manage)',
    },
  },
} satisfies Record<string, Meta>;
