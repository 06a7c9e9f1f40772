import type { PutTeamsRouteInput, TeamsRouteView } from '@beckon/contracts/teams/teams.contract';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';
import { findConnection } from './connection.service';
import { requireTeams } from './teams-config';

type RouteRow = Omit<TeamsRouteView, 'created_at'> & { created_at: Date };

const routeView = (row: RouteRow): TeamsRouteView => ({ ...row, created_at: row.created_at.toISOString() });

/** The conversations the bot was added to or spoken to in, most recently seen first. */
export async function listConversations(deps: Deps, identity: Identity) {
  requireTeams(deps);
  const rows = await deps.sql<{ conversation_id: string; kind: string; name: string; last_seen_at: Date }[]>`
    select conversation_id, kind, name, last_seen_at from teams_conversations
     where org_id = ${identity.orgId} order by last_seen_at desc limit 200`;
  return rows.map((row) => ({ ...row, last_seen_at: row.last_seen_at.toISOString() }));
}

export async function listRoutes(deps: Deps, identity: Identity) {
  requireTeams(deps);
  const rows = await deps.sql<RouteRow[]>`
    select r.channel_id, c.name as channel, r.conversation_id, r.conversation_name, r.created_at
      from teams_routes r join channels c on c.id = r.channel_id
     where r.org_id = ${identity.orgId} order by c.name`;
  return rows.map(routeView);
}

/**
 * Routes a Beckon channel of the organization to a Teams conversation the bot is in: one Bot
 * Framework told Beckon about (the bot was added to it, or spoken to there), since only then is
 * its service URL known. Anything else is a 400.
 */
export async function putRoute(deps: Deps, identity: Identity, input: PutTeamsRouteInput) {
  requireTeams(deps);
  if (!(await findConnection(deps.sql, identity.orgId)))
    throw AppError.conflict('teams_not_connected', 'no Microsoft Teams bot is connected');
  const [channel] = await deps.sql<{ name: string }[]>`
    select name from channels where id = ${input.channel_id} and org_id = ${identity.orgId}`;
  if (!channel) throw AppError.notFound();
  const [conversation] = await deps.sql<{ name: string }[]>`
    select name from teams_conversations
     where org_id = ${identity.orgId} and conversation_id = ${input.conversation_id}`;
  if (!conversation) throw AppError.invalid({ conversation_id: 'not a conversation the bot is in' });
  const row = await deps.sql.begin(async (tx) => {
    const [saved] = await tx<RouteRow[]>`
      insert into teams_routes (org_id, channel_id, conversation_id, conversation_name)
      values (${identity.orgId}, ${input.channel_id}, ${input.conversation_id}, ${conversation.name})
      on conflict (org_id, channel_id) do update
        set conversation_id = excluded.conversation_id, conversation_name = excluded.conversation_name
      returning channel_id, ${channel.name} as channel, conversation_id, conversation_name, created_at`;
    await recordOrgChange(tx, identity, 'teams.route', {
      channel_id: input.channel_id,
      conversation_id: input.conversation_id,
    });
    return saved as RouteRow;
  });
  return routeView(row);
}

export async function deleteRoute(deps: Deps, identity: Identity, channelId: string) {
  requireTeams(deps);
  const row = await deps.sql.begin(async (tx) => {
    const [gone] = await tx<RouteRow[]>`
      delete from teams_routes r using channels c
       where r.org_id = ${identity.orgId} and r.channel_id = ${channelId} and c.id = r.channel_id
      returning r.channel_id, c.name as channel, r.conversation_id, r.conversation_name, r.created_at`;
    if (!gone) throw AppError.notFound();
    await recordOrgChange(tx, identity, 'teams.unroute', { channel_id: channelId });
    return gone;
  });
  return routeView(row);
}
