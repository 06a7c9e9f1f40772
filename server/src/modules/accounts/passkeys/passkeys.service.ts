import type { PasskeyView } from '@beckon/contracts/accounts/passkeys.contract';
import {
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { uuidv7 } from 'uuidv7';
import type { Identity } from '../../../auth/identity';
import type { Deps } from '../../../deps';
import { AppError } from '../../../errors';
import { recordOrgChange } from '../../audit/audit.service';
import { consumeChallenge, passkeyRefused, rememberChallenge } from './challenges';
import { relyingParty } from './relying-party';

type PasskeyRow = {
  id: string;
  name: string;
  transports: string[];
  device_type: string;
  created_at: Date;
  last_used_at: Date | null;
};

/** EdDSA, ES256, RS256 (COSE ids): what authenticators offer, without Node's experimental ones. */
const ALGORITHMS = [-8, -7, -257];

const COLUMNS = 'id, name, transports, device_type, created_at, last_used_at';

const passkeyView = (row: PasskeyRow): PasskeyView => ({
  id: row.id,
  name: row.name,
  transports: row.transports,
  synced: row.device_type === 'multiDevice',
  created_at: row.created_at.toISOString(),
  last_used_at: row.last_used_at?.toISOString() ?? null,
});

export async function listPasskeys(deps: Deps, identity: Identity): Promise<PasskeyView[]> {
  const rows = await deps.sql<PasskeyRow[]>`
    select ${deps.sql.unsafe(COLUMNS)} from passkeys where user_id = ${identity.userId} order by created_at, id`;
  return rows.map(passkeyView);
}

/**
 * Options for the browser to create a discoverable passkey with user verification (so it signs
 * in alone, and counts as a step-up), for this user, excluding the authenticators already holding one.
 */
export async function passkeyRegistrationOptions(deps: Deps, identity: Identity) {
  const [user] = await deps.sql<{ email: string; name: string | null }[]>`
    select email, name from users where id = ${identity.userId}`;
  if (!user) throw AppError.notFound();
  const existing = await deps.sql<{ credential_id: string; transports: string[] }[]>`
    select credential_id, transports from passkeys where user_id = ${identity.userId}`;
  const rp = relyingParty(deps.env);
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: user.name ?? user.email,
    userID: new TextEncoder().encode(identity.userId),
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    supportedAlgorithmIDs: ALGORITHMS,
  });
  await rememberChallenge(deps.sql, {
    value: options.challenge,
    purpose: 'register',
    sessionId: identity.credentialId,
    now: deps.clock(),
  });
  return options as typeof options & Record<string, unknown>;
}

/** Checks the browser's answer to the registration options (its challenge used once) and stores the passkey. */
export async function registerPasskey(
  deps: Deps,
  identity: Identity,
  input: { response: unknown; name?: string },
): Promise<PasskeyView> {
  const now = deps.clock();
  const rp = relyingParty(deps.env);
  const verified = await verifyRegistrationResponse({
    response: input.response as RegistrationResponseJSON,
    expectedChallenge: consumeChallenge(deps.sql, 'register', identity.credentialId, now),
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: true,
    supportedAlgorithmIDs: ALGORITHMS,
  }).catch((error: unknown) => {
    throw passkeyRefused(error);
  });
  if (!verified.verified) throw passkeyRefused(null);
  const { credential, credentialDeviceType, credentialBackedUp } = verified.registrationInfo;
  const name = input.name ?? `Passkey of ${now.toISOString().slice(0, 10)}`;
  return deps.sql.begin(async (tx) => {
    const [row] = await tx<PasskeyRow[]>`
      insert into passkeys (id, user_id, credential_id, public_key, counter, transports, name,
                            device_type, backed_up, created_at)
      values (${uuidv7()}, ${identity.userId}, ${credential.id},
              ${Buffer.from(credential.publicKey).toString('base64url')}, ${credential.counter},
              ${credential.transports ?? []}, ${name}, ${credentialDeviceType}, ${credentialBackedUp}, ${now})
      on conflict (credential_id) do nothing
      returning ${tx.unsafe(COLUMNS)}`;
    if (!row) throw AppError.of('passkey_refused', 'this passkey is registered already');
    await recordOrgChange(tx, identity, 'passkey.create', { passkey_id: row.id, name: row.name });
    return passkeyView(row);
  });
}

export async function renamePasskey(deps: Deps, identity: Identity, input: { id: string; name: string }) {
  const [row] = await deps.sql<PasskeyRow[]>`
    update passkeys set name = ${input.name} where id = ${input.id} and user_id = ${identity.userId}
    returning ${deps.sql.unsafe(COLUMNS)}`;
  if (!row) throw AppError.notFound();
  return passkeyView(row);
}

/** Deletes one of the caller's passkeys: it no longer signs in or verifies (another person's is a 404). */
export async function deletePasskey(deps: Deps, identity: Identity, id: string) {
  return deps.sql.begin(async (tx) => {
    const [row] = await tx<{ id: string; name: string }[]>`
      delete from passkeys where id = ${id} and user_id = ${identity.userId} returning id, name`;
    if (!row) throw AppError.notFound();
    await recordOrgChange(tx, identity, 'passkey.delete', { passkey_id: row.id, name: row.name });
    return { id: row.id, deleted: true as const };
  });
}
