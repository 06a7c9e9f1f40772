import type { SessionGrant } from '@beckon/contracts/accounts/account.contract';
import type { Queryable } from '@beckon/db';
import { uuidv7 } from 'uuidv7';
import { generateToken, hashToken } from '../../auth/tokens';
import type { Verification } from '../../auth/verification';
import { addDays } from '../../clock';

/** Session lifetimes of the specification. */
export const SESSION_DAYS = 30;
export const INVITATION_SESSION_DAYS = 7;

export type SessionOrigin =
  | 'magic_link'
  | 'dev_login'
  | 'invitation'
  | 'switch_org'
  | 'passkey'
  | 'idp_a'
  | 'idp_b'
  | 'idp_c';

/**
 * A new session for a member of `orgId`; the raw token exists only in the answer. Its sign-in is
 * its verification (verification.ts), unless it carries on an earlier one (`verified`: another
 * organization's session of the same sign-in).
 */
export async function createSession(
  tx: Queryable,
  session: {
    userId: string;
    orgId: string;
    origin: SessionOrigin;
    now: Date;
    days?: number;
    verified?: Verification | null;
  },
): Promise<SessionGrant> {
  const token = generateToken();
  const expiresAt = addDays(session.now, session.days ?? SESSION_DAYS);
  await tx`insert into sessions (id, token_hash, user_id, org_id, origin, created_at, expires_at,
                                 verified_at, verified_method)
           values (${uuidv7()}, ${hashToken(token)}, ${session.userId}, ${session.orgId},
                   ${session.origin}, ${session.now}, ${expiresAt},
                   ${session.verified?.at ?? null}, ${session.verified?.method ?? null})`;
  return {
    token,
    user_id: session.userId,
    org_id: session.orgId,
    expires_at: expiresAt.toISOString(),
  };
}
