import { z } from 'zod';
import type { Meta } from '../meta';

const SNOWFLAKE = /^\d{15,21}$/;

export const ZDiscordConnection = z
  .object({
    application_id: z.string(),
    application_name: z.string(),
    interactions_url: z
      .string()
      .describe("The application's Interactions Endpoint URL to set in Discord's Developer Portal"),
    connected_at: z.string(),
  })
  .meta({ id: 'DiscordConnection' });
export type DiscordConnectionView = z.infer<typeof ZDiscordConnection>;

export const ZDiscordStatus = z
  .object({ connection: ZDiscordConnection.nullable() })
  .meta({ id: 'DiscordStatus' });

export const ZConnectDiscordInput = z.strictObject({
  bot_token: z
    .string()
    .min(50)
    .max(120)
    .regex(/^[A-Za-z0-9._-]+$/, { error: 'must be the bot token of a Discord application' })
    .describe("The application's bot token (Developer Portal, Bot); stored encrypted, never shown again"),
});
export type ConnectDiscordInput = z.infer<typeof ZConnectDiscordInput>;

export const ZDiscordRoute = z
  .object({
    channel_id: z.uuid(),
    channel: z.string(),
    discord_channel_id: z.string(),
    discord_channel_name: z.string(),
    created_at: z.string(),
  })
  .meta({ id: 'DiscordRoute' });
export type DiscordRouteView = z.infer<typeof ZDiscordRoute>;

export const ZPutDiscordRouteInput = z.strictObject({
  channel_id: z.uuid().describe('A Beckon channel of the organization'),
  discord_channel_id: z
    .string()
    .regex(SNOWFLAKE, { error: 'must be a Discord channel id' })
    .describe('A text channel of a server the bot is in, where it may send messages'),
});
export type PutDiscordRouteInput = z.infer<typeof ZPutDiscordRouteInput>;

export const ZDiscordRouteRef = z.strictObject({ channel_id: z.uuid() });

const tags = ['discord'];
const protect = true;
const unavailable = 'Without Discord configuration: 503 {"error":"discord is not configured"}.';
const path = <P extends string>(p: P) => `/discord${p}` as const;
export const discordMeta = {
  status: {
    openapi: {
      method: 'GET',
      path: path('/connection'),
      protect,
      tags,
      summary: "The organization's Discord application, if connected (org.manage)",
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
        "Connect the organization's Discord application by its bot token: Beckon registers its /beckon-link command (org.manage; plan gate: discord_applications)",
      description: `400 when Discord refuses the token, 402 on a plan without Discord (Free). ${unavailable}`,
    },
  },
  disconnect: {
    openapi: {
      method: 'DELETE',
      path: path('/connection'),
      protect,
      tags,
      summary: 'Disconnect the application: its token, routes, links and message records go (org.manage)',
      description: unavailable,
    },
  },
  routes: {
    openapi: {
      method: 'GET',
      path: path('/routes'),
      protect,
      tags,
      summary: 'Which Beckon channel posts to which Discord channel (org.manage)',
      description: unavailable,
    },
  },
  putRoute: {
    openapi: {
      method: 'PUT',
      path: path('/routes/{channel_id}'),
      protect,
      tags,
      summary: "Post a Beckon channel's new items to a Discord channel (created or replaced; org.manage)",
      description: `400 for a channel the bot cannot see, 409 when no application is connected. ${unavailable}`,
    },
  },
  deleteRoute: {
    openapi: {
      method: 'DELETE',
      path: path('/routes/{channel_id}'),
      protect,
      tags,
      summary: "Stop posting a Beckon channel's items to Discord (org.manage)",
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
        "Start linking the person's Discord account: a one-time code for the application's /beckon-link command (a person's session)",
      description: `409 when no application is connected. ${unavailable}`,
    },
  },
  linkStatus: {
    openapi: {
      method: 'GET',
      path: path('/links/me'),
      protect,
      tags,
      summary: "Whether the person's Discord account is linked (a person's session)",
      description: unavailable,
    },
  },
} satisfies Record<string, Meta>;
