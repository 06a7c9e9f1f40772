import type { RequireReauth } from '@beckon/contracts/items/reauth.contract';
import type { Queryable } from '@beckon/db';
import { AppError } from '../errors';
import type { Identity } from './identity';

/** How, and when, the person last proved presence on a session. */
export type Verification = { method: string; at: Date };

/**
 * The last verification of the identity's session: a step-up (a passkey asked for later), else
 * the sign-in that minted it. Read from the database, never from the credential cache, so a
 * step-up counts at once. Null for every other credential (API keys, OAuth tokens, signed links).
 */
export async function sessionVerification(sql: Queryable, identity: Identity): Promise<Verification | null> {
  if (identity.source !== 'session' || identity.clientId) return null;
  const [row] = await sql<{ method: string; at: Date }[]>`
    select coalesce(verified_method, origin) as method, coalesce(verified_at, created_at) as at
      from sessions where id = ${identity.credentialId} and revoked_at is null`;
  return row ?? null;
}

/** Whether a verification meets an item's requirement at `now`. */
export function meetsRequirement(verification: Verification | null, rule: RequireReauth, now: Date): boolean {
  if (!verification) return false;
  if (rule.method === 'passkey' && verification.method !== 'passkey') return false;
  // A session switched to another organization keeps the sign-in it came from (switchOrg).
  if (verification.method === 'switch_org') return false;
  return now.getTime() - verification.at.getTime() <= rule.within_minutes * 60_000;
}

/** The refusal of an answer that lacks the verification its item requires. */
export function reauthRequired(rule: RequireReauth, itemUrl: string): AppError {
  return AppError.of(
    'reauth_required',
    rule.method === 'passkey'
      ? `answering this item needs a passkey used within the last ${rule.within_minutes} minutes: answer it at ${itemUrl}`
      : `answering this item needs a sign-in or passkey within the last ${rule.within_minutes} minutes: answer it at ${itemUrl}`,
    { require_reauth: rule, item_url: itemUrl },
  );
}

/**
 * The verification an answer to an item with `require_reauth` rests on, or the refusal: only a
 * person's own dashboard session, verified recently enough (by a passkey when the rule says so).
 */
export async function freshVerification(
  sql: Queryable,
  identity: Identity | null,
  rule: RequireReauth,
  context: { now: Date; itemUrl: string },
): Promise<Verification> {
  const verification = identity ? await sessionVerification(sql, identity) : null;
  if (!verification || !meetsRequirement(verification, rule, context.now))
    throw reauthRequired(rule, context.itemUrl);
  return verification;
}
