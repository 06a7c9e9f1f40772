import { z } from 'zod';
import type { Meta } from '../meta';

const SLACK_ID = /^[A-Z0-9]{2,40}$/;

export const ZSlackConnection = z
  .object({
    team_id: z.string(),
    team_name: z.string(),
    bot_user_id: z.string().nullable(),
    connected_at: z.string(),
  })
  .meta({ id: 'SlackConnection' });
export type SlackConnectionView = z.infer<typeof ZSlackConnection>;

export const ZSlackStatus = z.object({ connection: ZSlackConnection.nullable() }).meta({ id: 'SlackStatus' });

export const ZSlackInstall = z
  .object({ url: z.string().describe("Slack's authorize page; it comes back to /webhooks/slack/oauth") })
  .meta({ id: 'SlackInstall' });

export const ZSlackChannel = z
  .object({
    id: z.string(),
    name: z.string(),
    is_private: z.boolean(),
    kind: z.enum(['channel', 'person']).describe("person: a linked member's DM with the app"),
  })
  .meta({ id: 'SlackChannel' });

export const ZSlackRoute = z
  .object({
    channel_id: z.uuid(),
    channel: z.string(),
    slack_channel_id: z.string(),
    slack_channel_name: z.string(),
    created_at: z.string(),
  })
  .meta({ id: 'SlackRoute' });
export type SlackRouteView = z.infer<typeof ZSlackRoute>;

export const ZPutSlackRouteInput = z.strictObject({
  channel_id: z.uuid().describe('A Beckon channel of the organization'),
  slack_channel_id: z
    .string()
    .regex(SLACK_ID, { error: 'must be a Slack channel or user id' })
    .describe(
      'A channel of the connected workspace (the bot must be in a private one), or a person (a user id: their DM with the app)',
    ),
});
export type PutSlackRouteInput = z.infer<typeof ZPutSlackRouteInput>;

export const ZSlackRouteRef = z.strictObject({ channel_id: z.uuid() });

export const ZSlackSignIn = z
  .object({
    url: z
      .string()
      .describe(
        "Slack's Sign in with Slack page; it comes back to /webhooks/slack/oauth, in this browser only",
      ),
  })
  .meta({ id: 'SlackSignIn' });

const tags = ['slack'];
const protect = true;
const unavailable = 'Without Slack configuration: 503 {"error":"slack is not configured"}.';
const path = <P extends string>(p: P) => `/slack${p}` as const;
export const slackMeta = {
  status: {
    openapi: {
      method: 'GET',
      path: path('/connection'),
      protect,
      tags,
      summary: "The organization's Slack workspace, if connected (org.manage)",
      description: unavailable,
    },
  },
  install: {
    openapi: {
      method: 'POST',
      path: path('/install'),
      protect,
      tags,
      summary:
        "Start connecting a Slack workspace: the authorize page's {url} (org.manage; plan gate: slack_workspaces)",
      description: `402 on a plan without Slack (Free). ${unavailable}`,
    },
  },
  disconnect: {
    openapi: {
      method: 'DELETE',
      path: path('/connection'),
      protect,
      tags,
      summary: 'Disconnect the workspace: its token, routes, links and message records go (org.manage)',
      description: unavailable,
    },
  },
  channels: {
    openapi: {
      method: 'GET',
      path: path('/channels'),
      protect,
      tags,
      summary: "Where items can go: the workspace's channels, and the people linked to members (org.manage)",
      description: `409 when no workspace is connected. ${unavailable}`,
    },
  },
  routes: {
    openapi: {
      method: 'GET',
      path: path('/routes'),
      protect,
      tags,
      summary: 'Which Beckon channel posts to which Slack channel (org.manage)',
      description: unavailable,
    },
  },
  putRoute: {
    openapi: {
      method: 'PUT',
      path: path('/routes/{channel_id}'),
      protect,
      tags,
      summary:
        "Post a Beckon channel's new items to a Slack channel or person (created or replaced; org.manage)",
      description: `400 for a Slack channel or person the connected workspace does not have, 409 when none is connected. ${unavailable}`,
    },
  },
  deleteRoute: {
    openapi: {
      method: 'DELETE',
      path: path('/routes/{channel_id}'),
      protect,
      tags,
      summary: "Stop posting a Beckon channel's items to Slack (org.manage)",
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
        "Start linking the person's Slack account: Sign in with Slack's {url} (a person's session); the answer's cookie binds it to this browser",
      description: `Open the url in the same browser: Slack sends it back to /webhooks/slack/oauth, which links the Slack user who signed in and redirects to /slack/link?linked=1 (or ?error=). 409 when no workspace is connected. ${unavailable}`,
    },
  },
} satisfies Record<string, Meta>;
