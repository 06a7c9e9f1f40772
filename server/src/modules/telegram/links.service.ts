import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { createLinkCode } from '../chat/link-codes';
import { findConnection } from './connection.service';
import { requireTelegram } from './telegram-config';

/**
 * A person links their Telegram account with a deep link made in the dashboard:
 * `t.me/<bot>?start=<code>` opens the bot, whose Start button sends `/start <code>`; the Telegram
 * account that sends it (Telegram says which, in the update its secret token vouches for) then
 * answers as that person in the organization. The code is good once, for 15 minutes.
 */
export async function startLink(deps: Deps, identity: Identity) {
  requireTelegram(deps);
  const connection = await findConnection(deps.sql, identity.orgId);
  if (!connection) throw AppError.conflict('telegram_not_connected', 'no Telegram bot is connected');
  const { code, expiresAt } = await createLinkCode(deps, 'telegram', identity);
  return {
    code,
    url: `https://t.me/${connection.bot_username}?start=${code}`,
    instructions: `Open the link in Telegram and press Start in the chat with @${connection.bot_username}.`,
    expires_at: expiresAt.toISOString(),
  };
}
