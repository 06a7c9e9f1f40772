import { z } from 'zod';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import {
  webhookMeta,
  ZCreatedWebhook,
  ZCreateWebhookInput,
  ZDeliveryList,
  ZListDeliveriesInput,
  ZWebhook,
  ZWebhookRef,
} from './webhooks.contract';
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks } from './webhooks.service';

const manage = permissionProcedure('webhooks.manage');

export const webhooksRouter = router({
  list: manage
    .meta(webhookMeta.list)
    .output(z.array(ZWebhook))
    .query(({ ctx }) => listWebhooks(ctx.deps, ctx.identity)),
  create: manage
    .meta(webhookMeta.create)
    .input(ZCreateWebhookInput)
    .output(ZCreatedWebhook)
    .mutation(({ ctx, input }) => createWebhook(ctx.deps, ctx.identity, input)),
  remove: manage
    .meta(webhookMeta.delete)
    .input(ZWebhookRef)
    .output(ZWebhook)
    .mutation(({ ctx, input }) => deleteWebhook(ctx.deps, ctx.identity, input.id)),
  deliveries: manage
    .meta(webhookMeta.deliveries)
    .input(ZListDeliveriesInput)
    .output(ZDeliveryList)
    .query(({ ctx, input }) => listDeliveries(ctx.deps, ctx.identity, input)),
});
