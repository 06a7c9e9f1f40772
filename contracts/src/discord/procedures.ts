import { z } from 'zod';
import { ZChatLinkCode, ZChatLinkStatus } from '../chat/chat-link.contract';
import { mutation, query } from '../procedure';
import {
  discordMeta,
  ZConnectDiscordInput,
  ZDiscordRoute,
  ZDiscordRouteRef,
  ZDiscordStatus,
  ZPutDiscordRouteInput,
} from './discord.contract';

export const discordProcedures = {
  status: query({ meta: discordMeta.status, output: ZDiscordStatus }),
  connect: mutation({ meta: discordMeta.connect, input: ZConnectDiscordInput, output: ZDiscordStatus }),
  disconnect: mutation({ meta: discordMeta.disconnect, output: ZDiscordStatus }),
  routes: query({ meta: discordMeta.routes, output: z.array(ZDiscordRoute) }),
  putRoute: mutation({ meta: discordMeta.putRoute, input: ZPutDiscordRouteInput, output: ZDiscordRoute }),
  deleteRoute: mutation({ meta: discordMeta.deleteRoute, input: ZDiscordRouteRef, output: ZDiscordRoute }),
  link: mutation({ meta: discordMeta.link, output: ZChatLinkCode }),
  linkStatus: query({ meta: discordMeta.linkStatus, output: ZChatLinkStatus }),
};
