import { z } from 'zod';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import { channelMeta, ZChannel, ZCreateChannelInput } from './channels.contract';
import { createChannel, listChannels } from './channels.service';

export const channelsRouter = router({
  list: permissionProcedure('items.read')
    .meta(channelMeta.list)
    .output(z.array(ZChannel))
    .query(({ ctx }) => listChannels(ctx.deps, ctx.identity)),
  create: permissionProcedure('channels.create')
    .meta(channelMeta.create)
    .input(ZCreateChannelInput)
    .output(ZChannel)
    .mutation(({ ctx, input }) => createChannel(ctx.deps, ctx.identity, input)),
});
