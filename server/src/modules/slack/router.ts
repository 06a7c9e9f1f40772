import { z } from 'zod';
import { router } from '../../trpc/init';
import { permissionProcedure, sessionProcedure } from '../../trpc/procedures';
import { disconnect, SLACK_PERMISSION, slackStatus, startInstall } from './connection.service';
import { startLink } from './links.service';
import { deleteRoute, listRoutes, listSlackChannels, putRoute } from './routes.service';
import {
  slackMeta,
  ZPutSlackRouteInput,
  ZSlackChannel,
  ZSlackInstall,
  ZSlackRoute,
  ZSlackRouteRef,
  ZSlackSignIn,
  ZSlackStatus,
} from './slack.contract';

const manage = permissionProcedure(SLACK_PERMISSION);

export const slackRouter = router({
  status: manage
    .meta(slackMeta.status)
    .output(ZSlackStatus)
    .query(({ ctx }) => slackStatus(ctx.deps, ctx.identity)),
  install: manage
    .meta(slackMeta.install)
    .output(ZSlackInstall)
    .mutation(async ({ ctx }) => {
      const { url, cookie } = await startInstall(ctx.deps, ctx.identity);
      ctx.responseHeaders['set-cookie'] = cookie;
      return { url };
    }),
  disconnect: manage
    .meta(slackMeta.disconnect)
    .output(ZSlackStatus)
    .mutation(({ ctx }) => disconnect(ctx.deps, ctx.identity)),
  channels: manage
    .meta(slackMeta.channels)
    .output(z.array(ZSlackChannel))
    .query(({ ctx }) => listSlackChannels(ctx.deps, ctx.identity)),
  routes: manage
    .meta(slackMeta.routes)
    .output(z.array(ZSlackRoute))
    .query(({ ctx }) => listRoutes(ctx.deps, ctx.identity)),
  putRoute: manage
    .meta(slackMeta.putRoute)
    .input(ZPutSlackRouteInput)
    .output(ZSlackRoute)
    .mutation(({ ctx, input }) => putRoute(ctx.deps, ctx.identity, input)),
  deleteRoute: manage
    .meta(slackMeta.deleteRoute)
    .input(ZSlackRouteRef)
    .output(ZSlackRoute)
    .mutation(({ ctx, input }) => deleteRoute(ctx.deps, ctx.identity, input.channel_id)),
  link: sessionProcedure
    .meta(slackMeta.link)
    .output(ZSlackSignIn)
    .mutation(async ({ ctx }) => {
      const { url, cookie } = await startLink(ctx.deps, ctx.identity);
      ctx.responseHeaders['set-cookie'] = cookie;
      return { url };
    }),
});
