import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';
import { orgBot } from './connection.service';
import type { PutSlackRouteInput, SlackRouteView } from './slack.contract';
import { requireSlack } from './slack-config';

type RouteRow = Omit<SlackRouteView, 'created_at'> & { created_at: Date };

const routeView = (row: RouteRow): SlackRouteView => ({ ...row, created_at: row.created_at.toISOString() });

async function connectedBot(deps: Deps, identity: Identity) {
  const bot = await orgBot(deps, requireSlack(deps.env), identity.orgId);
  if (!bot) throw AppError.conflict('no Slack workspace is connected');
  return bot;
}

/** The workspace's public channels and the private ones the bot is in (first 1,000). */
export async function listSlackChannels(deps: Deps, identity: Identity) {
  const { client } = await connectedBot(deps, identity);
  const answer = await client.conversations.list({
    types: 'public_channel,private_channel',
    exclude_archived: true,
    limit: 1000,
  });
  return (answer.channels ?? []).flatMap((c) =>
    c.id && c.name ? [{ id: c.id, name: c.name, is_private: c.is_private ?? false }] : [],
  );
}

export async function listRoutes(deps: Deps, identity: Identity) {
  requireSlack(deps.env);
  const rows = await deps.sql<RouteRow[]>`
    select r.channel_id, c.name as channel, r.slack_channel_id, r.slack_channel_name, r.created_at
      from slack_routes r join channels c on c.id = r.channel_id
     where r.org_id = ${identity.orgId} order by c.name`;
  return rows.map(routeView);
}

/**
 * Routes a Beckon channel of the organization to a Slack channel of its own workspace: the Slack
 * id is checked with the organization's bot (conversations.info), so another workspace's channel
 * is refused.
 */
export async function putRoute(deps: Deps, identity: Identity, input: PutSlackRouteInput) {
  const { client } = await connectedBot(deps, identity);
  const [channel] = await deps.sql<{ name: string }[]>`
    select name from channels where id = ${input.channel_id} and org_id = ${identity.orgId}`;
  if (!channel) throw AppError.notFound();
  const info = await client.conversations.info({ channel: input.slack_channel_id }).catch(() => null);
  if (!info?.channel?.id || info.channel.id !== input.slack_channel_id) {
    throw AppError.invalid({ slack_channel_id: 'not a channel of the connected workspace' });
  }
  const slackName = info.channel.name ?? input.slack_channel_id;
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
  requireSlack(deps.env);
  const row = await deps.sql.begin(async (tx) => {
    const [gone] = await tx<RouteRow[]>`
      delete from slack_routes r using channels c
       where r.org_id = ${identity.orgId} and r.channel_id = ${channelId} and c.id = r.channel_id
      returning r.channel_id, c.name as channel, r.slack_channel_id, r.slack_channel_name, r.created_at`;
    if (!gone) throw AppError.notFound();
    await recordOrgChange(tx, identity, 'slack.unroute', { channel_id: channelId });
    return gone;
  });
  return routeView(row);
}
