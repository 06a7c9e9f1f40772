import { z } from 'zod';
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

const tags = ['telegram'];
const protect = true;
const unavailable = 'Without Telegram configuration: 503 {"error":"telegram is not configured"}.';
const path = <P extends string>(p: P) => `/telegram${p}` as const;
export const telegramMeta = {
  status: {
    openapi: {
      method: 'GET',
      path: path('/connection'),
      protect,
      tags,
      summary: "The organization's Telegram bot, if connected (org.manage)",
      description: unavailable,
    },
  },
  connect: {
    openapi: {
      method: 'PUT',
      path: path('/connection'),
      protect,
      tags,
      summary:
        "Connect the organization's Telegram bot by its token: Beckon sets its webhook (org.manage; plan gate: telegram_bots)",
      description: `400 when Telegram refuses the token, 402 on a plan without Telegram (Free). ${unavailable}`,
    },
  },
  disconnect: {
    openapi: {
      method: 'DELETE',
      path: path('/connection'),
      protect,
      tags,
      summary: 'Disconnect the bot: its webhook, token, routes, links and message records go (org.manage)',
      description: unavailable,
    },
  },
  routes: {
    openapi: {
      method: 'GET',
      path: path('/routes'),
      protect,
      tags,
      summary: 'Which Beckon channel posts to which Telegram chat (org.manage)',
      description: unavailable,
    },
  },
  putRoute: {
    openapi: {
      method: 'PUT',
      path: path('/routes/{channel_id}'),
      protect,
      tags,
      summary: "Post a Beckon channel's new items to a Telegram chat (created or replaced; org.manage)",
      description: `400 for a chat the bot cannot see, 409 when no bot is connected. ${unavailable}`,
    },
  },
  deleteRoute: {
    openapi: {
      method: 'DELETE',
      path: path('/routes/{channel_id}'),
      protect,
      tags,
      summary: "Stop posting a Beckon channel's items to Telegram (org.manage)",
      description: unavailable,
    },
  },
  link: {
    openapi: {
      method: 'POST',
      path: path('/links'),
      protect,
      tags,
      summary:
        "Start linking the person's Telegram account: the bot's deep link with a one-time code (a person's session)",
      description: `Opening the link in Telegram sends the bot /start <code>, which links that Telegram account. 409 when no bot is connected. ${unavailable}`,
    },
  },
  linkStatus: {
    openapi: {
      method: 'GET',
      path: path('/links/me'),
      protect,
      tags,
      summary: "Whether the person's Telegram account is linked (a person's session)",
      description: unavailable,
    },
  },
} satisfies Record<string, Meta>;
