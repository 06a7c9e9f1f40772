import type { PutTelegramRouteInput, TelegramRouteView } from '@beckon/contracts/telegram/telegram.contract';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';
import { connectedBot } from './connection.service';
import { requireTelegram } from './telegram-config';

type RouteRow = Omit<TelegramRouteView, 'created_at'> & { created_at: Date };

const routeView = (row: RouteRow): TelegramRouteView => ({
  ...row,
  created_at: row.created_at.toISOString(),
});

export async function listRoutes(deps: Deps, identity: Identity) {
  requireTelegram(deps);
  const rows = await deps.sql<RouteRow[]>`
    select r.channel_id, c.name as channel, r.chat_id, r.chat_title, r.created_at
      from telegram_routes r join channels c on c.id = r.channel_id
     where r.org_id = ${identity.orgId} order by c.name`;
  return rows.map(routeView);
}

/**
 * Routes a Beckon channel of the organization to a Telegram chat its bot can see (getChat): a
 * group or channel the bot was added to, or a person who started it. Anything else is a 400.
 */
export async function putRoute(deps: Deps, identity: Identity, input: PutTelegramRouteInput) {
  const { api } = await connectedBot(deps, identity);
  const [channel] = await deps.sql<{ name: string }[]>`
    select name from channels where id = ${input.channel_id} and org_id = ${identity.orgId}`;
  if (!channel) throw AppError.notFound();
  const chat = await api.getChat(input.chat_id).catch(() => null);
  if (!chat) throw AppError.invalid({ chat_id: 'not a chat the bot can see' });
  const title =
    ('title' in chat && chat.title) ||
    ('first_name' in chat && [chat.first_name, chat.last_name].filter(Boolean).join(' ')) ||
    input.chat_id;
  const row = await deps.sql.begin(async (tx) => {
    const [saved] = await tx<RouteRow[]>`
      insert into telegram_routes (org_id, channel_id, chat_id, chat_title)
      values (${identity.orgId}, ${input.channel_id}, ${String(chat.id)}, ${title})
      on conflict (org_id, channel_id) do update
        set chat_id = excluded.chat_id, chat_title = excluded.chat_title
      returning channel_id, ${channel.name} as channel, chat_id, chat_title, created_at`;
    await recordOrgChange(tx, identity, 'telegram.route', {
      channel_id: input.channel_id,
      chat_id: String(chat.id),
    });
    return saved as RouteRow;
  });
  return routeView(row);
}

export async function deleteRoute(deps: Deps, identity: Identity, channelId: string) {
  requireTelegram(deps);
  const row = await deps.sql.begin(async (tx) => {
    const [gone] = await tx<RouteRow[]>`
      delete from telegram_routes r using channels c
       where r.org_id = ${identity.orgId} and r.channel_id = ${channelId} and c.id = r.channel_id
      returning r.channel_id, c.name as channel, r.chat_id, r.chat_title, r.created_at`;
    if (!gone) throw AppError.notFound();
    await recordOrgChange(tx, identity, 'telegram.unroute', { channel_id: channelId });
    return gone;
  });
  return routeView(row);
}
