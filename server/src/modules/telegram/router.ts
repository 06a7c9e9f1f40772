import { telegramProcedures } from '@beckon/contracts/telegram/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { permissionProcedure, sessionProcedure } from '../../trpc/procedures';
import { linkStatus } from '../chat/link-codes';
import { connect, disconnect, telegramStatus } from './connection.service';
import { startLink } from './links.service';
import { deleteRoute, listRoutes, putRoute } from './routes.service';
import { requireTelegram } from './telegram-config';

/** The permission that manages the organization's Telegram bot. */
const manage = permissionProcedure('org.manage');

export const telegramRouter = router({
  status: implement(manage, telegramProcedures.status).query(({ ctx }) =>
    telegramStatus(ctx.deps, ctx.identity),
  ),
  connect: implement(manage, telegramProcedures.connect).mutation(({ ctx, input }) =>
    connect(ctx.deps, ctx.identity, input),
  ),
  disconnect: implement(manage, telegramProcedures.disconnect).mutation(({ ctx }) =>
    disconnect(ctx.deps, ctx.identity),
  ),
  routes: implement(manage, telegramProcedures.routes).query(({ ctx }) => listRoutes(ctx.deps, ctx.identity)),
  putRoute: implement(manage, telegramProcedures.putRoute).mutation(({ ctx, input }) =>
    putRoute(ctx.deps, ctx.identity, input),
  ),
  deleteRoute: implement(manage, telegramProcedures.deleteRoute).mutation(({ ctx, input }) =>
    deleteRoute(ctx.deps, ctx.identity, input.channel_id),
  ),
  link: implement(sessionProcedure, telegramProcedures.link).mutation(({ ctx }) =>
    startLink(ctx.deps, ctx.identity),
  ),
  linkStatus: implement(sessionProcedure, telegramProcedures.linkStatus).query(({ ctx }) => {
    requireTelegram(ctx.deps);
    return linkStatus(ctx.deps, 'telegram', ctx.identity);
  }),
});
