import { z } from 'zod';
import { router } from '../../trpc/init';
import { inboundWebhookProcedure, permissionProcedure } from '../../trpc/procedures';
import { createItem } from '../items/create-item';
import { ZDeliverInboundInput, ZItem } from '../items/item.contract';
import {
  inboundMeta,
  ZCreatedInboundWebhook,
  ZCreateInboundWebhookInput,
  ZInboundWebhook,
  ZInboundWebhookId,
} from './inbound.contract';
import { createInboundWebhook, deleteInboundWebhook, listInboundWebhooks } from './inbound.service';

const manage = permissionProcedure('webhooks.manage');

export const inboundRouter = router({
  list: manage
    .meta(inboundMeta.list)
    .output(z.array(ZInboundWebhook))
    .query(({ ctx }) => listInboundWebhooks(ctx.deps, ctx.identity)),
  create: manage
    .meta(inboundMeta.create)
    .input(ZCreateInboundWebhookInput)
    .output(ZCreatedInboundWebhook)
    .mutation(({ ctx, input }) => createInboundWebhook(ctx.deps, ctx.identity, input.name)),
  remove: manage
    .meta(inboundMeta.remove)
    .input(ZInboundWebhookId)
    .output(ZInboundWebhook)
    .mutation(({ ctx, input }) => deleteInboundWebhook(ctx.deps, ctx.identity, input.id)),
  deliver: inboundWebhookProcedure
    .meta(inboundMeta.deliver)
    .input(ZDeliverInboundInput)
    .output(ZItem)
    .mutation(({ ctx, input: { token: _token, ...item } }) => createItem(ctx.deps, ctx.identity, item)),
});
