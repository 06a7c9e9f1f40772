import { slackProcedures } from '@beckon/contracts/slack/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { permissionProcedure, sessionProcedure } from '../../trpc/procedures';
import { disconnect, SLACK_PERMISSION, slackStatus, startInstall } from './connection.service';
import { startLink } from './links.service';
import { deleteRoute, listRoutes, listSlackChannels, putRoute } from './routes.service';

const manage = permissionProcedure(SLACK_PERMISSION);

export const slackRouter = router({
  status: implement(manage, slackProcedures.status).query(({ ctx }) => slackStatus(ctx.deps, ctx.identity)),
  install: implement(manage, slackProcedures.install).mutation(async ({ ctx }) => {
    const { url, cookie } = await startInstall(ctx.deps, ctx.identity);
    ctx.responseHeaders['set-cookie'] = cookie;
    return { url };
  }),
  disconnect: implement(manage, slackProcedures.disconnect).mutation(({ ctx }) =>
    disconnect(ctx.deps, ctx.identity),
  ),
  channels: implement(manage, slackProcedures.channels).query(({ ctx }) =>
    listSlackChannels(ctx.deps, ctx.identity),
  ),
  routes: implement(manage, slackProcedures.routes).query(({ ctx }) => listRoutes(ctx.deps, ctx.identity)),
  putRoute: implement(manage, slackProcedures.putRoute).mutation(({ ctx, input }) =>
    putRoute(ctx.deps, ctx.identity, input),
  ),
  deleteRoute: implement(manage, slackProcedures.deleteRoute).mutation(({ ctx, input }) =>
    deleteRoute(ctx.deps, ctx.identity, input.channel_id),
  ),
  link: implement(sessionProcedure, slackProcedures.link).mutation(async ({ ctx }) => {
    const { url, cookie } = await startLink(ctx.deps, ctx.identity);
    ctx.responseHeaders['set-cookie'] = cookie;
    return { url };
  }),
});
