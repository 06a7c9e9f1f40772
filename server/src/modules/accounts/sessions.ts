import type { SessionGrant } from '@beckon/contracts/accounts/account.contract';
import type { Queryable } from '@beckon/db';
import { uuidv7 } from 'uuidv7';
import { generateToken, hashToken } from '../../auth/tokens';
import { addDays } from '../../clock';

/** Session lifetimes of the specification. */
export const SESSION_DAYS = 30;
export const INVITATION_SESSION_DAYS = 7;

export type SessionOrigin =
  | 'magic_link'
  | 'dev_login'
  | 'invitation'
  | 'switch_org'
  | 'idp_a'
  | 'idp_b'
  | 'idp_c';

/** A new session for a member of `orgId`; the raw token exists only in the answer. */
export async function createSession(
  tx: Queryable,
  session: { userId: string; orgId: string; origin: SessionOrigin; now: Date; days?: number },
): Promise<SessionGrant> {
  const token = generateToken();
  const expiresAt = addDays(session.now, session.days ?? SESSION_DAYS);
  await tx`insert into sessions (id, token_hash, user_id, org_id, origin, created_at, expires_at)
           values (${uuidv7()}, ${hashToken(token)}, ${session.userId}, ${session.orgId},
                   ${session.origin}, ${session.now}, ${expiresAt})`;
  return {
    token,
    user_id: session.userId,
    org_id: session.orgId,
    expires_at: expiresAt.toISOString(),
  };
}
