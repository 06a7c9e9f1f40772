import type { Queryable } from '@beckon/db';
import { AppError } from '../../../errors';

/** How long a WebAuthn ceremony may take: its challenge is refused after this. */
export const CHALLENGE_MINUTES = 5;

export type ChallengePurpose = 'register' | 'sign_in' | 'verify';

/** Stores a challenge handed to the browser; registration and step-up ones belong to the session. */
export async function rememberChallenge(
  sql: Queryable,
  challenge: { value: string; purpose: ChallengePurpose; sessionId: string | null; now: Date },
): Promise<void> {
  const expiresAt = new Date(challenge.now.getTime() + CHALLENGE_MINUTES * 60_000);
  await sql`insert into webauthn_challenges (challenge, purpose, session_id, created_at, expires_at)
            values (${challenge.value}, ${challenge.purpose}, ${challenge.sessionId}, ${challenge.now}, ${expiresAt})`;
}

/**
 * The check the WebAuthn library runs on the challenge the browser signed: true once per stored
 * challenge of this purpose and session that has not expired. The delete is the check, so of two
 * answers naming one challenge only one sees the row.
 */
export const consumeChallenge =
  (sql: Queryable, purpose: ChallengePurpose, sessionId: string | null, now: Date) =>
  async (value: string): Promise<boolean> => {
    const rows = await sql`
      delete from webauthn_challenges
       where challenge = ${value} and purpose = ${purpose}
         and session_id is not distinct from ${sessionId}::uuid and expires_at > ${now}
      returning 1`;
    return rows.length === 1;
  };

/** What the WebAuthn library threw, as the coded refusal every passkey operation answers. */
export function passkeyRefused(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const reason = error instanceof Error ? error.message : 'the passkey could not be verified';
  return AppError.of('passkey_refused', reason);
}
