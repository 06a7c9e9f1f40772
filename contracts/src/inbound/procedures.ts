import { z } from 'zod';
import { ZDeliverInboundInput, ZItem } from '../items/item.contract';
import { mutation, query } from '../procedure';
import {
  inboundMeta,
  ZCreatedInboundWebhook,
  ZCreateInboundWebhookInput,
  ZInboundWebhook,
  ZInboundWebhookId,
} from './inbound.contract';

export const inboundProcedures = {
  list: query({ meta: inboundMeta.list, output: z.array(ZInboundWebhook) }),
  create: mutation({
    meta: inboundMeta.create,
    input: ZCreateInboundWebhookInput,
    output: ZCreatedInboundWebhook,
  }),
  remove: mutation({ meta: inboundMeta.remove, input: ZInboundWebhookId, output: ZInboundWebhook }),
  deliver: mutation({ meta: inboundMeta.deliver, input: ZDeliverInboundInput, output: ZItem }),
};
