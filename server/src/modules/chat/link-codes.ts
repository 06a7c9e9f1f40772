import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '@beckon/db';
import type { chatProviders } from '@beckon/db/schema';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { recordAudit } from '../audit/audit.service';

export type ChatProvider = (typeof chatProviders)[number];

/** The table and column of each app's linked accounts. */
export const LINKS = {
  telegram: { table: 'telegram_user_links', column: 'telegram_user_id' },
  discord: { table: 'discord_user_links', column: 'discord_user_id' },
  teams: { table: 'teams_user_links', column: 'teams_user_id' },
} as const satisfies Record<ChatProvider, { table: string; column: string }>;

/** How long a link code made in the dashboard can be used. */
export const LINK_CODE_TTL_MINUTES = 15;

const hashOf = (code: string) => createHash('sha256').update(code).digest('hex');

/**
 * A one-time code linking the person's account of a chat app: 24 random bytes, base64url (32
 * characters, within Telegram's 64 for a deep link's `start` parameter). Only its hash is stored.
 * An older unused code of the same person for the same app stops working.
 */
export async function createLinkCode(deps: Deps, provider: ChatProvider, identity: Identity) {
  const code = randomBytes(24).toString('base64url');
  const expiresAt = new Date(deps.clock().getTime() + LINK_CODE_TTL_MINUTES * 60_000);
  await deps.sql.begin(async (tx) => {
    await tx`delete from chat_link_codes
              where provider = ${provider} and org_id = ${identity.orgId} and user_id = ${identity.userId}`;
    await tx`insert into chat_link_codes (code_hash, provider, org_id, user_id, expires_at)
             values (${hashOf(code)}, ${provider}, ${identity.orgId}, ${identity.userId}, ${expiresAt})`;
  });
  return { code, expiresAt };
}

/**
 * The person a code was made by, if it is current, of this app and this organization, and that
 * person is still a member; the code is used up either way it matches.
 */
export async function claimLinkCode(
  tx: Queryable,
  provider: ChatProvider,
  orgId: string,
  code: string,
  now: Date,
): Promise<string | null> {
  const [row] = await tx<{ user_id: string; expires_at: Date }[]>`
    delete from chat_link_codes
     where code_hash = ${hashOf(code)} and provider = ${provider} and org_id = ${orgId}
    returning user_id, expires_at`;
  if (!row || row.expires_at <= now) return null;
  const [member] = await tx`select 1 from memberships where org_id = ${orgId} and user_id = ${row.user_id}`;
  return member ? row.user_id : null;
}

/**
 * A code sent from an account of the app (Telegram's `/start <code>`, Discord's command): that
 * account is linked to the code's person, in place of any earlier link either way. Answers what
 * to tell the sender.
 */
export async function linkAccount(
  deps: Deps,
  provider: ChatProvider,
  orgId: string,
  externalUserId: string,
  code: string,
): Promise<string> {
  const { table, column } = LINKS[provider];
  return deps.sql.begin(async (tx) => {
    const userId = await claimLinkCode(tx, provider, orgId, code, deps.clock());
    if (!userId) return 'This code is not valid any more: make a new one in Beckon.';
    await tx`delete from ${tx(table)}
              where org_id = ${orgId} and (${tx(column)} = ${externalUserId} or user_id = ${userId})`;
    await tx`insert into ${tx(table)} (org_id, ${tx(column)}, user_id) values (${orgId}, ${externalUserId}, ${userId})`;
    await recordAudit(tx, {
      orgId,
      action: `${provider}.link`,
      actor: { type: 'user', id: userId },
      data: { [column]: externalUserId },
    });
    return 'Your account is linked: you can answer Beckon items here.';
  });
}

/** Whether the person's account of the app is linked in the organization. */
export async function linkStatus(deps: Deps, provider: ChatProvider, identity: Identity) {
  const { table } = LINKS[provider];
  const [row] = await deps.sql<{ created_at: Date }[]>`
    select created_at from ${deps.sql(table)} where org_id = ${identity.orgId} and user_id = ${identity.userId}`;
  return { linked: Boolean(row), linked_at: row?.created_at.toISOString() ?? null };
}
