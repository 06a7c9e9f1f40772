import type { PutTeamsRouteInput, TeamsRouteView } from '@beckon/contracts/teams/teams.contract';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { channelName, listRoutesOf, type RouteTable, removeRoute, saveRoute } from '../chat/routes-table';
import { findConnection } from './connection.service';
import { requireTeams } from './teams-config';

const ROUTES: RouteTable = {
  app: 'teams',
  table: 'teams_routes',
  target: 'conversation_id',
  name: 'conversation_name',
};

/** The conversations the bot was added to or spoken to in, most recently seen first. */
export async function listConversations(deps: Deps, identity: Identity) {
  requireTeams(deps);
  const rows = await deps.sql<{ conversation_id: string; kind: string; name: string; last_seen_at: Date }[]>`
    select conversation_id, kind, name, last_seen_at from teams_conversations
     where org_id = ${identity.orgId} order by last_seen_at desc limit 200`;
  return rows.map((row) => ({ ...row, last_seen_at: row.last_seen_at.toISOString() }));
}

export function listRoutes(deps: Deps, identity: Identity) {
  requireTeams(deps);
  return listRoutesOf<TeamsRouteView>(deps, identity, ROUTES);
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
  const channel = { id: input.channel_id, name: await channelName(deps, identity, input.channel_id) };
  const [conversation] = await deps.sql<{ name: string }[]>`
    select name from teams_conversations
     where org_id = ${identity.orgId} and conversation_id = ${input.conversation_id}`;
  if (!conversation) throw AppError.invalid({ conversation_id: 'not a conversation the bot is in' });
  return saveRoute<TeamsRouteView>(deps, identity, ROUTES, channel, {
    id: input.conversation_id,
    name: conversation.name,
  });
}

export function deleteRoute(deps: Deps, identity: Identity, channelId: string) {
  requireTeams(deps);
  return removeRoute<TeamsRouteView>(deps, identity, ROUTES, channelId);
}
