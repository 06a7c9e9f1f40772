import type { PutSlackRouteInput, SlackRouteView } from '@beckon/contracts/slack/slack.contract';
import type { WebClient } from '@slack/web-api';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';
import { orgBot } from './connection.service';
import { requireSlack } from './slack-config';

type RouteRow = Omit<SlackRouteView, 'created_at'> & { created_at: Date };

const routeView = (row: RouteRow): SlackRouteView => ({ ...row, created_at: row.created_at.toISOString() });

async function connectedBot(deps: Deps, identity: Identity) {
  const bot = await orgBot(deps, requireSlack(deps), identity.orgId);
  if (!bot) throw AppError.conflict('slack_not_connected', 'no Slack workspace is connected');
  return bot;
}

/**
 * Where items can go: the workspace's public channels and the private ones the bot is in (first
 * 1,000), then the people linked to members of the organization (their DM with the app).
 */
export async function listSlackChannels(deps: Deps, identity: Identity) {
  const { client } = await connectedBot(deps, identity);
  const answer = await client.conversations.list({
    types: 'public_channel,private_channel',
    exclude_archived: true,
    limit: 1000,
  });
  const channels = (answer.channels ?? []).flatMap((c) =>
    c.id && c.name
      ? [{ id: c.id, name: c.name, is_private: c.is_private ?? false, kind: 'channel' as const }]
      : [],
  );
  const people = await deps.sql<{ id: string; name: string }[]>`
    select l.slack_user_id as id, coalesce(u.name, u.email) as name
      from slack_user_links l join users u on u.id = l.user_id
     where l.org_id = ${identity.orgId} order by 2`;
  return [...channels, ...people.map((p) => ({ ...p, is_private: true, kind: 'person' as const }))];
}

/** A Slack user id (a person: items go to their DM with the app) rather than a channel id. */
const isPerson = (id: string) => /^[UW]/.test(id);

/** The name of a channel or person of the organization's own workspace, or null if it has none such. */
async function targetName(client: WebClient, id: string): Promise<string | null> {
  if (isPerson(id)) {
    const info = await client.users.info({ user: id }).catch(() => null);
    const user = info?.user;
    if (!user || user.id !== id || user.deleted || user.is_bot) return null;
    return `@${user.profile?.display_name || user.real_name || user.name || id}`;
  }
  const info = await client.conversations.info({ channel: id }).catch(() => null);
  return info?.channel?.id === id ? (info.channel.name ?? id) : null;
}

export async function listRoutes(deps: Deps, identity: Identity) {
  requireSlack(deps);
  const rows = await deps.sql<RouteRow[]>`
    select r.channel_id, c.name as channel, r.slack_channel_id, r.slack_channel_name, r.created_at
      from slack_routes r join channels c on c.org_id = r.org_id and c.id = r.channel_id
     where r.org_id = ${identity.orgId} order by c.name`;
  return rows.map(routeView);
}

/**
 * Routes a Beckon channel of the organization to a Slack channel or person of its own workspace:
 * the Slack id is checked with the organization's bot (conversations.info, users.info), so
 * another workspace's channel or person is refused.
 */
export async function putRoute(deps: Deps, identity: Identity, input: PutSlackRouteInput) {
  const { client } = await connectedBot(deps, identity);
  const [channel] = await deps.sql<{ name: string }[]>`
    select name from channels where id = ${input.channel_id} and org_id = ${identity.orgId}`;
  if (!channel) throw AppError.notFound();
  const slackName = await targetName(client, input.slack_channel_id);
  if (!slackName)
    throw AppError.invalid({ slack_channel_id: 'not a channel or person of the connected workspace' });
  const row = await deps.sql.begin(async (tx) => {
    const [saved] = await tx<RouteRow[]>`
      insert into slack_routes (org_id, channel_id, slack_channel_id, slack_channel_name)
      values (${identity.orgId}, ${input.channel_id}, ${input.slack_channel_id}, ${slackName})
      on conflict (org_id, channel_id) do update
        set slack_channel_id = excluded.slack_channel_id, slack_channel_name = excluded.slack_channel_name
      returning channel_id, ${channel.name} as channel, slack_channel_id, slack_channel_name, created_at`;
    await recordOrgChange(tx, identity, 'slack.route', {
      channel_id: input.channel_id,
      slack_channel_id: input.slack_channel_id,
    });
    return saved as RouteRow;
  });
  return routeView(row);
}

export async function deleteRoute(deps: Deps, identity: Identity, channelId: string) {
  requireSlack(deps);
  const row = await deps.sql.begin(async (tx) => {
    const [gone] = await tx<RouteRow[]>`
      delete from slack_routes r using channels c
       where r.org_id = ${identity.orgId} and r.channel_id = ${channelId} and c.org_id = r.org_id and c.id = r.channel_id
      returning r.channel_id, c.name as channel, r.slack_channel_id, r.slack_channel_name, r.created_at`;
    if (!gone) throw AppError.notFound();
    await recordOrgChange(tx, identity, 'slack.unroute', { channel_id: channelId });
    return gone;
  });
  return routeView(row);
}
