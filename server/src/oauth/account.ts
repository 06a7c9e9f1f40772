import type { Queryable } from '@beckon/db';

/**
 * The account oidc-provider knows is `<user_id>:<org_id>`: a grant and its tokens belong to one
 * person acting in one organization, the one their browser session was in at consent time.
 */
export type OAuthAccount = { userId: string; orgId: string };

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const ACCOUNT_ID = new RegExp(`^(${UUID}):(${UUID})$`, 'i');

export const accountIdOf = (account: OAuthAccount) => `${account.userId}:${account.orgId}`;

export function parseAccountId(accountId: unknown): OAuthAccount | null {
  if (typeof accountId !== 'string') return null;
  const match = ACCOUNT_ID.exec(accountId);
  return match?.[1] && match[2] ? { userId: match[1], orgId: match[2] } : null;
}

/** An account exists while the user is still a member of the organization. */
export async function accountExists(sql: Queryable, accountId: string): Promise<boolean> {
  const account = parseAccountId(accountId);
  if (!account) return false;
  const rows = await sql`select 1 from memberships
                          where user_id = ${account.userId} and org_id = ${account.orgId}`;
  return rows.length > 0;
}

/** What the consent page names: who is signed in, and in which organization. */
export async function describeAccount(
  sql: Queryable,
  account: OAuthAccount,
): Promise<{ email: string; orgName: string } | null> {
  const [row] = await sql<{ email: string; org_name: string }[]>`
    select u.email, o.name as org_name
      from memberships m
      join users u on u.id = m.user_id
      join organizations o on o.id = m.org_id
     where m.user_id = ${account.userId} and m.org_id = ${account.orgId}`;
  return row ? { email: row.email, orgName: row.org_name } : null;
}
