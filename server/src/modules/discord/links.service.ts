import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { createLinkCode } from '../chat/link-codes';
import { findConnection, LINK_COMMAND } from './connection.service';
import { requireDiscord } from './discord-config';

/**
 * A person links their Discord account with a one-time code made in the dashboard, sent with the
 * application's `/beckon-link code:<code>` command: Discord says which user sent it, in an
 * interaction signed with the application's key. The code is good once, for 15 minutes.
 */
export async function startLink(deps: Deps, identity: Identity) {
  requireDiscord(deps);
  const connection = await findConnection(deps.sql, identity.orgId);
  if (!connection) throw AppError.conflict('discord_not_connected', 'no Discord application is connected');
  const { code, expiresAt } = await createLinkCode(deps, 'discord', identity);
  return {
    code,
    url: null,
    instructions: `In Discord, send /${LINK_COMMAND} code:${code} to ${connection.application_name}.`,
    expires_at: expiresAt.toISOString(),
  };
}
