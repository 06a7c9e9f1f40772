import type { DiscordRouteView, PutDiscordRouteInput } from '@beckon/contracts/discord/discord.contract';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';
import { connectedApp } from './connection.service';
import { requireDiscord } from './discord-config';

type RouteRow = Omit<DiscordRouteView, 'created_at'> & { created_at: Date };

const routeView = (row: RouteRow): DiscordRouteView => ({ ...row, created_at: row.created_at.toISOString() });

/** Discord's text channels (a server's text and announcement channels) that take messages. */
const TEXT_CHANNEL_TYPES = new Set([0, 5]);

export async function listRoutes(deps: Deps, identity: Identity) {
  requireDiscord(deps);
  const rows = await deps.sql<RouteRow[]>`
    select r.channel_id, c.name as channel, r.discord_channel_id, r.discord_channel_name, r.created_at
      from discord_routes r join channels c on c.id = r.channel_id
     where r.org_id = ${identity.orgId} order by c.name`;
  return rows.map(routeView);
}

/**
 * Routes a Beckon channel of the organization to a text channel its application's bot can see
 * (GET /channels/<id> with the bot's token): a channel of a server the bot was not added to, or
 * not a text channel, is a 400.
 */
export async function putRoute(deps: Deps, identity: Identity, input: PutDiscordRouteInput) {
  const { client } = await connectedApp(deps, identity);
  const [channel] = await deps.sql<{ name: string }[]>`
    select name from channels where id = ${input.channel_id} and org_id = ${identity.orgId}`;
  if (!channel) throw AppError.notFound();
  const target = await client
    .get<{ id: string; name?: string; type: number }>(`/channels/${input.discord_channel_id}`)
    .catch(() => null);
  if (!target || target.id !== input.discord_channel_id || !TEXT_CHANNEL_TYPES.has(target.type))
    throw AppError.invalid({ discord_channel_id: 'not a text channel the bot can see' });
  const name = target.name ?? target.id;
  const row = await deps.sql.begin(async (tx) => {
    const [saved] = await tx<RouteRow[]>`
      insert into discord_routes (org_id, channel_id, discord_channel_id, discord_channel_name)
      values (${identity.orgId}, ${input.channel_id}, ${target.id}, ${name})
      on conflict (org_id, channel_id) do update
        set discord_channel_id = excluded.discord_channel_id, discord_channel_name = excluded.discord_channel_name
      returning channel_id, ${channel.name} as channel, discord_channel_id, discord_channel_name, created_at`;
    await recordOrgChange(tx, identity, 'discord.route', {
      channel_id: input.channel_id,
      discord_channel_id: target.id,
    });
    return saved as RouteRow;
  });
  return routeView(row);
}

export async function deleteRoute(deps: Deps, identity: Identity, channelId: string) {
  requireDiscord(deps);
  const row = await deps.sql.begin(async (tx) => {
    const [gone] = await tx<RouteRow[]>`
      delete from discord_routes r using channels c
       where r.org_id = ${identity.orgId} and r.channel_id = ${channelId} and c.id = r.channel_id
      returning r.channel_id, c.name as channel, r.discord_channel_id, r.discord_channel_name, r.created_at`;
    if (!gone) throw AppError.notFound();
    await recordOrgChange(tx, identity, 'discord.unroute', { channel_id: channelId });
    return gone;
  });
  return routeView(row);
}
