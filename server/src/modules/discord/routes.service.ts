import type { DiscordRouteView, PutDiscordRouteInput } from '@beckon/contracts/discord/discord.contract';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { channelName, listRoutesOf, type RouteTable, removeRoute, saveRoute } from '../chat/routes-table';
import { connectedApp } from './connection.service';
import { requireDiscord } from './discord-config';

const ROUTES: RouteTable = {
  app: 'discord',
  table: 'discord_routes',
  target: 'discord_channel_id',
  name: 'discord_channel_name',
};

/** Discord's text channels (a server's text and announcement channels) that take messages. */
const TEXT_CHANNEL_TYPES = new Set([0, 5]);

export function listRoutes(deps: Deps, identity: Identity) {
  requireDiscord(deps);
  return listRoutesOf<DiscordRouteView>(deps, identity, ROUTES);
}

/**
 * Routes a Beckon channel of the organization to a text channel its application's bot can see
 * (GET /channels/<id> with the bot's token): a channel of a server the bot was not added to, or
 * not a text channel, is a 400.
 */
export async function putRoute(deps: Deps, identity: Identity, input: PutDiscordRouteInput) {
  const { client } = await connectedApp(deps, identity);
  const channel = { id: input.channel_id, name: await channelName(deps, identity, input.channel_id) };
  const target = await client
    .get<{ id: string; name?: string; type: number }>(`/channels/${input.discord_channel_id}`)
    .catch(() => null);
  if (!target || target.id !== input.discord_channel_id || !TEXT_CHANNEL_TYPES.has(target.type))
    throw AppError.invalid({ discord_channel_id: 'not a text channel the bot can see' });
  const name = target.name ?? target.id;
  return saveRoute<DiscordRouteView>(deps, identity, ROUTES, channel, { id: target.id, name: name });
}

export function deleteRoute(deps: Deps, identity: Identity, channelId: string) {
  requireDiscord(deps);
  return removeRoute<DiscordRouteView>(deps, identity, ROUTES, channelId);
}
