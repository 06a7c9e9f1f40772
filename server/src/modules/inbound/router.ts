import { inboundProcedures } from '@beckon/contracts/inbound/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { inboundWebhookProcedure, permissionProcedure } from '../../trpc/procedures';
import { createItem } from '../items/operations/create-item';
import { createInboundWebhook, deleteInboundWebhook, listInboundWebhooks } from './inbound.service';

const manage = permissionProcedure('webhooks.manage');

export const inboundRouter = router({
  list: implement(manage, inboundProcedures.list).query(({ ctx }) =>
    listInboundWebhooks(ctx.deps, ctx.identity),
  ),
  create: implement(manage, inboundProcedures.create).mutation(({ ctx, input }) =>
    createInboundWebhook(ctx.deps, ctx.identity, input.name),
  ),
  remove: implement(manage, inboundProcedures.remove).mutation(({ ctx, input }) =>
    deleteInboundWebhook(ctx.deps, ctx.identity, input.id),
  ),
  deliver: implement(inboundWebhookProcedure, inboundProcedures.deliver).mutation(
    ({ ctx, input: { token: _token, ...item } }) => createItem(ctx.deps, ctx.identity, item),
  ),
});
