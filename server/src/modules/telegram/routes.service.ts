import type { PutTelegramRouteInput, TelegramRouteView } from '@beckon/contracts/telegram/telegram.contract';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { channelName, listRoutesOf, type RouteTable, removeRoute, saveRoute } from '../chat/routes-table';
import { connectedBot } from './connection.service';
import { requireTelegram } from './telegram-config';

const ROUTES: RouteTable = {
  app: 'telegram',
  table: 'telegram_routes',
  target: 'chat_id',
  name: 'chat_title',
};

export function listRoutes(deps: Deps, identity: Identity) {
  requireTelegram(deps);
  return listRoutesOf<TelegramRouteView>(deps, identity, ROUTES);
}

/**
 * Routes a Beckon channel of the organization to a Telegram chat its bot can see (getChat): a
 * group or channel the bot was added to, or a person who started it. Anything else is a 400.
 */
export async function putRoute(deps: Deps, identity: Identity, input: PutTelegramRouteInput) {
  const { api } = await connectedBot(deps, identity);
  const channel = { id: input.channel_id, name: await channelName(deps, identity, input.channel_id) };
  const chat = await api.getChat(input.chat_id).catch(() => null);
  if (!chat) throw AppError.invalid({ chat_id: 'not a chat the bot can see' });
  const title =
    ('title' in chat && chat.title) ||
    ('first_name' in chat && [chat.first_name, chat.last_name].filter(Boolean).join(' ')) ||
    input.chat_id;
  return saveRoute<TelegramRouteView>(deps, identity, ROUTES, channel, { id: String(chat.id), name: title });
}

export function deleteRoute(deps: Deps, identity: Identity, channelId: string) {
  requireTelegram(deps);
  return removeRoute<TelegramRouteView>(deps, identity, ROUTES, channelId);
}
