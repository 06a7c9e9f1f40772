import { z } from 'zod';
import { chatAppRoute } from '../chat/chat-app-meta';
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

const route = chatAppRoute('discord', 'Discord');
export const discordMeta = {
  status: route('GET', '/connection', "The organization's Discord application, if connected (org.manage)"),
  connect: route(
    'PUT',
    '/connection',
    "Connect the organization's Discord application by its bot token: Beckon registers its /beckon-link command (org.manage; plan gate: discord_applications)",
    '400 when Discord refuses the token, 402 on a plan without Discord (Free).',
  ),
  disconnect: route(
    'DELETE',
    '/connection',
    'Disconnect the application: its token, routes, links and message records go (org.manage)',
  ),
  routes: route('GET', '/routes', 'Which Beckon channel posts to which Discord channel (org.manage)'),
  putRoute: route(
    'PUT',
    '/routes/{channel_id}',
    "Post a Beckon channel's new items to a Discord channel (created or replaced; org.manage)",
    '400 for a channel the bot cannot see, 409 when no application is connected.',
  ),
  deleteRoute: route(
    'DELETE',
    '/routes/{channel_id}',
    "Stop posting a Beckon channel's items to Discord (org.manage)",
  ),
  link: route(
    'POST',
    '/links',
    "Start linking the person's Discord account: a one-time code for the application's /beckon-link command (a person's session)",
    '409 when no application is connected.',
  ),
  linkStatus: route(
    'GET',
    '/links/me',
    "Whether the person's Discord account is linked (a person's session)",
  ),
} satisfies Record<string, Meta>;
