import { z } from 'zod';
import { chatAppRoute } from '../chat/chat-app-meta';
import type { Meta } from '../meta';

export const ZTelegramConnection = z
  .object({
    bot_id: z.string(),
    bot_username: z.string(),
    webhook_url: z
      .string()
      .describe('Where Telegram sends the bot’s updates (set by Beckon when connecting)'),
    connected_at: z.string(),
  })
  .meta({ id: 'TelegramConnection' });
export type TelegramConnectionView = z.infer<typeof ZTelegramConnection>;

export const ZTelegramStatus = z
  .object({ connection: ZTelegramConnection.nullable() })
  .meta({ id: 'TelegramStatus' });

export const ZConnectTelegramInput = z.strictObject({
  bot_token: z
    .string()
    .regex(/^\d{1,20}:[A-Za-z0-9_-]{20,100}$/, { error: "must be a bot token from Telegram's @BotFather" })
    .describe("The bot's token from @BotFather; stored encrypted, never shown again"),
});
export type ConnectTelegramInput = z.infer<typeof ZConnectTelegramInput>;

export const ZTelegramRoute = z
  .object({
    channel_id: z.uuid(),
    channel: z.string(),
    chat_id: z.string(),
    chat_title: z.string(),
    created_at: z.string(),
  })
  .meta({ id: 'TelegramRoute' });
export type TelegramRouteView = z.infer<typeof ZTelegramRoute>;

export const ZPutTelegramRouteInput = z.strictObject({
  channel_id: z.uuid().describe('A Beckon channel of the organization'),
  chat_id: z
    .string()
    .regex(/^-?\d{1,20}$/, { error: 'must be a Telegram chat id' })
    .describe('A group, supergroup or channel the bot is in (negative id), or a person who started the bot'),
});
export type PutTelegramRouteInput = z.infer<typeof ZPutTelegramRouteInput>;

export const ZTelegramRouteRef = z.strictObject({ channel_id: z.uuid() });

const route = chatAppRoute('telegram', 'Telegram');
export const telegramMeta = {
  status: route('GET', '/connection', "The organization's Telegram bot, if connected (org.manage)"),
  connect: route(
    'PUT',
    '/connection',
    "Connect the organization's Telegram bot by its token: Beckon sets its webhook (org.manage; plan gate: telegram_bots)",
    '400 when Telegram refuses the token, 402 on a plan without Telegram (Free).',
  ),
  disconnect: route(
    'DELETE',
    '/connection',
    'Disconnect the bot: its webhook, token, routes, links and message records go (org.manage)',
  ),
  routes: route('GET', '/routes', 'Which Beckon channel posts to which Telegram chat (org.manage)'),
  putRoute: route(
    'PUT',
    '/routes/{channel_id}',
    "Post a Beckon channel's new items to a Telegram chat (created or replaced; org.manage)",
    '400 for a chat the bot cannot see, 409 when no bot is connected.',
  ),
  deleteRoute: route(
    'DELETE',
    '/routes/{channel_id}',
    "Stop posting a Beckon channel's items to Telegram (org.manage)",
  ),
  link: route(
    'POST',
    '/links',
    "Start linking the person's Telegram account: the bot's deep link with a one-time code (a person's session)",
    'Opening the link in Telegram sends the bot /start <code>, which links that Telegram account. 409 when no bot is connected.',
  ),
  linkStatus: route(
    'GET',
    '/links/me',
    "Whether the person's Telegram account is linked (a person's session)",
  ),
} satisfies Record<string, Meta>;
