import { discordProcedures } from '@beckon/contracts/discord/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { permissionProcedure, sessionProcedure } from '../../trpc/procedures';
import { linkStatus } from '../chat/link-codes';
import { connect, disconnect, discordStatus } from './connection.service';
import { requireDiscord } from './discord-config';
import { startLink } from './links.service';
import { deleteRoute, listRoutes, putRoute } from './routes.service';

/** The permission that manages the organization's Discord bot. */
const manage = permissionProcedure('org.manage');

export const discordRouter = router({
  status: implement(manage, discordProcedures.status).query(({ ctx }) =>
    discordStatus(ctx.deps, ctx.identity),
  ),
  connect: implement(manage, discordProcedures.connect).mutation(({ ctx, input }) =>
    connect(ctx.deps, ctx.identity, input),
  ),
  disconnect: implement(manage, discordProcedures.disconnect).mutation(({ ctx }) =>
    disconnect(ctx.deps, ctx.identity),
  ),
  routes: implement(manage, discordProcedures.routes).query(({ ctx }) => listRoutes(ctx.deps, ctx.identity)),
  putRoute: implement(manage, discordProcedures.putRoute).mutation(({ ctx, input }) =>
    putRoute(ctx.deps, ctx.identity, input),
  ),
  deleteRoute: implement(manage, discordProcedures.deleteRoute).mutation(({ ctx, input }) =>
    deleteRoute(ctx.deps, ctx.identity, input.channel_id),
  ),
  link: implement(sessionProcedure, discordProcedures.link).mutation(({ ctx }) =>
    startLink(ctx.deps, ctx.identity),
  ),
  linkStatus: implement(sessionProcedure, discordProcedures.linkStatus).query(({ ctx }) => {
    requireDiscord(ctx.deps);
    return linkStatus(ctx.deps, 'discord', ctx.identity);
  }),
});
