import type { SessionGrant } from '@beckon/contracts/accounts/account.contract';
import type { Queryable } from '@beckon/db';
import { recordAudit } from '../audit/audit.service';
import { createSession, type SessionOrigin } from './sessions';
import { findOrCreateUser, type SignedInUser } from './users';

export type SignIn = {
  /** The organization asked for; used only if the user is a member, else the personal workspace. */
  orgId?: string | null;
  method: SessionOrigin;
  now: Date;
  /** Extra audit details (e.g. the provider account). */
  details?: Record<string, unknown>;
};

/**
 * Signs a person in by verified email (magic link, or an external provider's first sign-in):
 * the user and their personal workspace are created on first sign-in. Runs in `tx`.
 */
export async function signInByEmail(
  tx: Queryable,
  person: { email: string; name?: string | null },
  request: SignIn,
): Promise<SessionGrant & { user: SignedInUser }> {
  const user = await findOrCreateUser(tx, person.email, person.name ?? null);
  return { ...(await startSession(tx, user, request)), user };
}

/** Mints the session of a sign-in for the organization asked for and audits it there. */
export async function startSession(
  tx: Queryable,
  user: SignedInUser,
  request: SignIn,
): Promise<SessionGrant> {
  const orgId =
    request.orgId && (await isMember(tx, request.orgId, user.id)) ? request.orgId : user.personalOrgId;
  const grant = await createSession(tx, { userId: user.id, orgId, origin: request.method, now: request.now });
  await recordAudit(tx, {
    orgId,
    action: 'auth.sign_in',
    actor: { type: 'user', id: user.id },
    data: { method: request.method, new_user: user.created, ...request.details },
  });
  return grant;
}

export async function isMember(tx: Queryable, orgId: string, userId: string): Promise<boolean> {
  const rows = await tx`select 1 from memberships where org_id = ${orgId} and user_id = ${userId}`;
  return rows.length > 0;
}
