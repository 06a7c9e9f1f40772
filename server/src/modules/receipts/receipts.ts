import { createHash, sign } from 'node:crypto';
import { canonicalize } from '@beckon/contracts/proofs/jcs';
import type { Queryable } from '@beckon/db';
import { uuidv7 } from 'uuidv7';
import type { Actor, Identity } from '../../auth/identity';
import type { Verification } from '../../auth/verification';
import type { Env } from '../../env';
import { activeReceiptKey } from './receipt-keys';

/** How long a receipt says it stands: the agent acts within it or asks again. */
export const RECEIPT_TTL_SECONDS = 24 * 3600;
export const RECEIPT_TYPE = 'beckon-receipt+jwt';

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** What a receipt says of the item (an items row has it all). */
type DecidedItem = {
  id: string;
  org_id: string;
  status: string;
  action_digest: string | null;
  response: Record<string, unknown> | null;
  answered_via: string | null;
  answered_at: Date | null;
};

/** How the decider proved who they were: the credential kind, or the policy or the service. */
export function authMethod(identity: Identity | null, actor: Actor): string {
  if (actor.type === 'policy' || actor.type === 'system' || !identity) return actor.type;
  return identity.clientId ? 'oauth' : identity.source;
}

/**
 * The receipt of a decision: a compact JWS (EdDSA, the organization's active key) over the item,
 * the digest of the action it decides, the outcome and the digest of the response, who decided,
 * where and how they signed in (and when they last proved presence: amr, auth_time), when, and
 * until when it stands. Verifiable with any JOSE library
 * and the organization's keys (GET /.well-known/jwks.json?org_id=...). Throws when it cannot be
 * made: the caller's transaction then records no decision (fail closed).
 */
export async function issueReceipt(
  sql: Queryable,
  env: Env,
  row: DecidedItem,
  decider: { actor: Actor; method: string; verified?: Verification | null },
): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  const claims = {
    iss: env.RESOURCE_URL,
    sub: row.id,
    jti: uuidv7(),
    iat,
    exp: iat + RECEIPT_TTL_SECONDS,
    org_id: row.org_id,
    item_id: row.id,
    action_digest: row.action_digest,
    outcome: row.status,
    response_digest: row.response
      ? createHash('sha256').update(canonicalize(row.response)).digest('hex')
      : null,
    decided_by: decider.actor,
    answered_via: row.answered_via,
    auth_method: decider.method,
    // How and when the person last proved presence (OIDC's amr and auth_time): the sign-in, or
    // the passkey of a step-up; for other credentials their kind and no time.
    amr: [decider.verified?.method ?? decider.method],
    auth_time: decider.verified ? Math.floor(decider.verified.at.getTime() / 1000) : null,
    decided_at: (row.answered_at ?? new Date()).toISOString(),
  };
  return signWithOrgKey(sql, env, row.org_id, RECEIPT_TYPE, claims);
}

/** A compact JWS (EdDSA) of `claims`, signed with the organization's active receipt key. */
export async function signWithOrgKey(
  sql: Queryable,
  env: Env,
  orgId: string,
  typ: string,
  claims: Record<string, unknown>,
): Promise<string> {
  const { kid, key } = await activeReceiptKey(sql, env, orgId);
  const input = `${b64({ alg: 'EdDSA', typ, kid })}.${b64(claims)}`;
  return `${input}.${sign(null, Buffer.from(input), key).toString('base64url')}`;
}
