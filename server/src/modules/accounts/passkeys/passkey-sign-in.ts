import type { SessionGrant } from '@beckon/contracts/accounts/account.contract';
import type { Queryable } from '@beckon/db';
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  verifyAuthenticationResponse,
} from '@simplewebauthn/server';
import type { Identity } from '../../../auth/identity';
import type { Deps } from '../../../deps';
import { AppError } from '../../../errors';
import { recordOrgChange } from '../../audit/audit.service';
import { startSession } from '../sign-in';
import { personalWorkspace } from '../users';
import { type ChallengePurpose, consumeChallenge, passkeyRefused, rememberChallenge } from './challenges';
import { relyingParty } from './relying-party';

type StoredPasskey = {
  id: string;
  user_id: string;
  email: string;
  credential_id: string;
  public_key: string;
  counter: number;
  transports: string[];
};

/** Options to ask the browser for a passkey: any discoverable one, or one of the session's person. */
async function authenticationOptions(deps: Deps, purpose: ChallengePurpose, identity: Identity | null) {
  const allowed = identity
    ? await deps.sql<{ credential_id: string; transports: string[] }[]>`
        select credential_id, transports from passkeys where user_id = ${identity.userId}`
    : [];
  if (identity && allowed.length === 0)
    throw AppError.of('passkey_refused', 'you have no passkey yet: add one in the settings');
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(deps.env).id,
    userVerification: 'required',
    allowCredentials: allowed.map((p) => ({ id: p.credential_id, transports: p.transports })),
  });
  await rememberChallenge(deps.sql, {
    value: options.challenge,
    purpose,
    sessionId: identity?.credentialId ?? null,
    now: deps.clock(),
  });
  return options as typeof options & Record<string, unknown>;
}

/**
 * Checks an assertion against the stored passkey it names and the challenge handed out for this
 * purpose (used once), with user verification required; moves the signature counter on.
 */
async function verifyAssertion(
  deps: Deps,
  tx: Queryable,
  response: AuthenticationResponseJSON,
  expected: { purpose: ChallengePurpose; sessionId: string | null; userId?: string },
): Promise<StoredPasskey> {
  const now = deps.clock();
  const [passkey] = await tx<StoredPasskey[]>`
    select p.id, p.user_id, u.email, p.credential_id, p.public_key, p.counter, p.transports
      from passkeys p join users u on u.id = p.user_id
     where p.credential_id = ${response.id} for update of p`;
  // A passkey of someone else is as unknown as none, to a step-up.
  if (!passkey || (expected.userId && passkey.user_id !== expected.userId))
    throw AppError.of('passkey_refused', 'unknown passkey');
  const rp = relyingParty(deps.env);
  const verified = await verifyAuthenticationResponse({
    response,
    expectedChallenge: consumeChallenge(tx, expected.purpose, expected.sessionId, now),
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    credential: {
      id: passkey.credential_id,
      publicKey: Buffer.from(passkey.public_key, 'base64url'),
      counter: Number(passkey.counter),
      transports: passkey.transports,
    },
    requireUserVerification: true,
  }).catch((error: unknown) => {
    throw passkeyRefused(error);
  });
  if (!verified.verified) throw passkeyRefused(null);
  await tx`update passkeys set counter = ${verified.authenticationInfo.newCounter}, last_used_at = ${now}
            where id = ${passkey.id}`;
  return passkey;
}

export const passkeySignInOptions = (deps: Deps) => authenticationOptions(deps, 'sign_in', null);

/** Signs in the passkey's person (a session whose verification is the passkey). */
export async function passkeySignIn(
  deps: Deps,
  input: { response: unknown; org_id?: string },
): Promise<SessionGrant> {
  const now = deps.clock();
  return deps.sql.begin(async (tx) => {
    const passkey = await verifyAssertion(deps, tx, input.response as AuthenticationResponseJSON, {
      purpose: 'sign_in',
      sessionId: null,
    });
    const user = {
      id: passkey.user_id,
      email: passkey.email,
      personalOrgId: await personalWorkspace(tx, passkey.user_id, passkey.email),
      created: false,
    };
    return startSession(tx, user, {
      orgId: input.org_id ?? null,
      method: 'passkey',
      now,
      details: { passkey_id: passkey.id },
    });
  });
}

export const passkeyVerifyOptions = (deps: Deps, identity: Identity) =>
  authenticationOptions(deps, 'verify', identity);

/**
 * A step-up: the person proves presence with one of their passkeys, and the session counts as
 * verified by a passkey now (items with `require_reauth` look at this, verification.ts).
 */
export async function verifyPasskey(deps: Deps, identity: Identity, input: { response: unknown }) {
  const now = deps.clock();
  return deps.sql.begin(async (tx) => {
    const passkey = await verifyAssertion(deps, tx, input.response as AuthenticationResponseJSON, {
      purpose: 'verify',
      sessionId: identity.credentialId,
      userId: identity.userId,
    });
    await tx`update sessions set verified_at = ${now}, verified_method = 'passkey'
              where id = ${identity.credentialId}`;
    await recordOrgChange(tx, identity, 'auth.verify', { method: 'passkey', passkey_id: passkey.id });
    return { method: 'passkey', verified_at: now.toISOString() };
  });
}
