import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { createLinkCode } from '../chat/link-codes';
import { findConnection } from './connection.service';
import { requireTeams } from './teams-config';

/**
 * A person links their Teams account with a one-time code made in the dashboard, sent to the bot
 * in Teams (its personal chat, or mentioning it in a channel): Bot Framework says which Teams user
 * sent it, in an activity its signed token vouches for. The code is good once, for 15 minutes.
 */
export async function startLink(deps: Deps, identity: Identity) {
  requireTeams(deps);
  if (!(await findConnection(deps.sql, identity.orgId)))
    throw AppError.conflict('teams_not_connected', 'no Microsoft Teams bot is connected');
  const { code, expiresAt } = await createLinkCode(deps, 'teams', identity);
  return {
    code,
    url: null,
    instructions: `In Microsoft Teams, send the bot this message in its chat: link ${code}`,
    expires_at: expiresAt.toISOString(),
  };
}
