import { channelsProcedures } from '@beckon/contracts/channels/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import { createChannel, listChannels } from './channels.service';

export const channelsRouter = router({
  list: implement(permissionProcedure('items.read'), channelsProcedures.list).query(({ ctx }) =>
    listChannels(ctx.deps, ctx.identity),
  ),
  create: implement(permissionProcedure('channels.create'), channelsProcedures.create).mutation(
    ({ ctx, input }) => createChannel(ctx.deps, ctx.identity, input),
  ),
});
