import { z } from 'zod';
import { mutation, query } from '../procedure';
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

export const slackProcedures = {
  status: query({ meta: slackMeta.status, output: ZSlackStatus }),
  install: mutation({ meta: slackMeta.install, output: ZSlackInstall }),
  disconnect: mutation({ meta: slackMeta.disconnect, output: ZSlackStatus }),
  channels: query({ meta: slackMeta.channels, output: z.array(ZSlackChannel) }),
  routes: query({ meta: slackMeta.routes, output: z.array(ZSlackRoute) }),
  putRoute: mutation({ meta: slackMeta.putRoute, input: ZPutSlackRouteInput, output: ZSlackRoute }),
  deleteRoute: mutation({ meta: slackMeta.deleteRoute, input: ZSlackRouteRef, output: ZSlackRoute }),
  link: mutation({ meta: slackMeta.link, output: ZSlackSignIn }),
};
