import { z } from 'zod';
import { mutation, query } from '../procedure';
import {
  webhookMeta,
  ZCreatedWebhook,
  ZCreateWebhookInput,
  ZDeliveryList,
  ZListDeliveriesInput,
  ZWebhook,
  ZWebhookRef,
} from './webhooks.contract';

export const webhooksProcedures = {
  list: query({ meta: webhookMeta.list, output: z.array(ZWebhook) }),
  create: mutation({ meta: webhookMeta.create, input: ZCreateWebhookInput, output: ZCreatedWebhook }),
  remove: mutation({ meta: webhookMeta.delete, input: ZWebhookRef, output: ZWebhook }),
  deliveries: query({ meta: webhookMeta.deliveries, input: ZListDeliveriesInput, output: ZDeliveryList }),
};
