import { z } from 'zod';
import { ZChatLinkCode, ZChatLinkStatus } from '../chat/chat-link.contract';
import { mutation, query } from '../procedure';
import {
  telegramMeta,
  ZConnectTelegramInput,
  ZPutTelegramRouteInput,
  ZTelegramRoute,
  ZTelegramRouteRef,
  ZTelegramStatus,
} from './telegram.contract';

export const telegramProcedures = {
  status: query({ meta: telegramMeta.status, output: ZTelegramStatus }),
  connect: mutation({ meta: telegramMeta.connect, input: ZConnectTelegramInput, output: ZTelegramStatus }),
  disconnect: mutation({ meta: telegramMeta.disconnect, output: ZTelegramStatus }),
  routes: query({ meta: telegramMeta.routes, output: z.array(ZTelegramRoute) }),
  putRoute: mutation({ meta: telegramMeta.putRoute, input: ZPutTelegramRouteInput, output: ZTelegramRoute }),
  deleteRoute: mutation({ meta: telegramMeta.deleteRoute, input: ZTelegramRouteRef, output: ZTelegramRoute }),
  link: mutation({ meta: telegramMeta.link, output: ZChatLinkCode }),
  linkStatus: query({ meta: telegramMeta.linkStatus, output: ZChatLinkStatus }),
};
