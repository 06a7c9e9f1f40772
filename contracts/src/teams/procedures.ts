import { z } from 'zod';
import { ZChatLinkCode, ZChatLinkStatus } from '../chat/chat-link.contract';
import { mutation, query } from '../procedure';
import {
  teamsMeta,
  ZConnectTeamsInput,
  ZPutTeamsRouteInput,
  ZTeamsConversation,
  ZTeamsRoute,
  ZTeamsRouteRef,
  ZTeamsStatus,
} from './teams.contract';

export const teamsProcedures = {
  status: query({ meta: teamsMeta.status, output: ZTeamsStatus }),
  connect: mutation({ meta: teamsMeta.connect, input: ZConnectTeamsInput, output: ZTeamsStatus }),
  disconnect: mutation({ meta: teamsMeta.disconnect, output: ZTeamsStatus }),
  conversations: query({ meta: teamsMeta.conversations, output: z.array(ZTeamsConversation) }),
  routes: query({ meta: teamsMeta.routes, output: z.array(ZTeamsRoute) }),
  putRoute: mutation({ meta: teamsMeta.putRoute, input: ZPutTeamsRouteInput, output: ZTeamsRoute }),
  deleteRoute: mutation({ meta: teamsMeta.deleteRoute, input: ZTeamsRouteRef, output: ZTeamsRoute }),
  link: mutation({ meta: teamsMeta.link, output: ZChatLinkCode }),
  linkStatus: query({ meta: teamsMeta.linkStatus, output: ZChatLinkStatus }),
};
