import { z } from 'zod';
import { chatAppRoute } from '../chat/chat-app-meta';
import type { Meta } from '../meta';

export const ZTeamsConnection = z
  .object({
    app_id: z.string().describe("The bot's Microsoft App ID"),
    tenant_id: z
      .string()
      .nullable()
      .describe('The Entra tenant of a single-tenant bot; null for a multi-tenant one'),
    messaging_endpoint: z
      .string()
      .describe("The bot's messaging endpoint to set in its Azure Bot registration (Configuration)"),
    connected_at: z.string(),
  })
  .meta({ id: 'TeamsConnection' });
export type TeamsConnectionView = z.infer<typeof ZTeamsConnection>;

export const ZTeamsStatus = z.object({ connection: ZTeamsConnection.nullable() }).meta({ id: 'TeamsStatus' });

export const ZConnectTeamsInput = z.strictObject({
  app_id: z.uuid().describe("The bot's Microsoft App ID (Azure Bot, Configuration)"),
  app_password: z
    .string()
    .min(8)
    .max(200)
    .describe("A client secret of the bot's app registration; stored encrypted, never shown again"),
  tenant_id: z
    .uuid()
    .optional()
    .describe('The Entra tenant (directory) id of a single-tenant bot; left out for a multi-tenant one'),
});
export type ConnectTeamsInput = z.infer<typeof ZConnectTeamsInput>;

export const ZTeamsConversation = z
  .object({
    conversation_id: z.string(),
    kind: z.string().describe('`channel`, `groupChat` or `personal`'),
    name: z.string(),
    last_seen_at: z.string(),
  })
  .meta({ id: 'TeamsConversation' });

export const ZTeamsRoute = z
  .object({
    channel_id: z.uuid(),
    channel: z.string(),
    conversation_id: z.string(),
    conversation_name: z.string(),
    created_at: z.string(),
  })
  .meta({ id: 'TeamsRoute' });
export type TeamsRouteView = z.infer<typeof ZTeamsRoute>;

export const ZPutTeamsRouteInput = z.strictObject({
  channel_id: z.uuid().describe('A Beckon channel of the organization'),
  conversation_id: z
    .string()
    .min(1)
    .max(500)
    .describe('A Teams conversation the bot is in (GET /api/teams/conversations lists them)'),
});
export type PutTeamsRouteInput = z.infer<typeof ZPutTeamsRouteInput>;

export const ZTeamsRouteRef = z.strictObject({ channel_id: z.uuid() });

const route = chatAppRoute('teams', 'Microsoft Teams');
export const teamsMeta = {
  status: route('GET', '/connection', "The organization's Microsoft Teams bot, if connected (org.manage)"),
  connect: route(
    'PUT',
    '/connection',
    "Connect the organization's Microsoft Teams bot by its app id and client secret (org.manage; plan gate: teams_bots)",
    '400 when Microsoft Entra refuses the app id and secret, 402 on a plan without Teams (Free).',
  ),
  disconnect: route(
    'DELETE',
    '/connection',
    'Disconnect the bot: its secret, conversations, routes, links and card records go (org.manage)',
  ),
  conversations: route(
    'GET',
    '/conversations',
    'The Teams conversations the bot was added to or spoken to in (org.manage)',
  ),
  routes: route('GET', '/routes', 'Which Beckon channel posts to which Teams conversation (org.manage)'),
  putRoute: route(
    'PUT',
    '/routes/{channel_id}',
    "Post a Beckon channel's new items to a Teams conversation (created or replaced; org.manage)",
    '400 for a conversation the bot is not in, 409 when no bot is connected.',
  ),
  deleteRoute: route(
    'DELETE',
    '/routes/{channel_id}',
    "Stop posting a Beckon channel's items to Teams (org.manage)",
  ),
  link: route(
    'POST',
    '/links',
    "Start linking the person's Teams account: a one-time code to send the bot in Teams (a person's session)",
    '409 when no bot is connected.',
  ),
  linkStatus: route('GET', '/links/me', "Whether the person's Teams account is linked (a person's session)"),
} satisfies Record<string, Meta>;
