import { webhooksProcedures } from '@beckon/contracts/webhooks/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks } from './webhooks.service';

const manage = permissionProcedure('webhooks.manage');

export const webhooksRouter = router({
  list: implement(manage, webhooksProcedures.list).query(({ ctx }) => listWebhooks(ctx.deps, ctx.identity)),
  create: implement(manage, webhooksProcedures.create).mutation(({ ctx, input }) =>
    createWebhook(ctx.deps, ctx.identity, input),
  ),
  remove: implement(manage, webhooksProcedures.remove).mutation(({ ctx, input }) =>
    deleteWebhook(ctx.deps, ctx.identity, input.id),
  ),
  deliveries: implement(manage, webhooksProcedures.deliveries).query(({ ctx, input }) =>
    listDeliveries(ctx.deps, ctx.identity, input),
  ),
});
