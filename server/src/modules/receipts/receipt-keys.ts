import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import type { Queryable } from '@beckon/db';
import { uuidv7 } from 'uuidv7';
import type { Env } from '../../env';
import { deriveKey } from '../../oauth/keys';
import { resolveSigningKey } from '../../signing-key';

/** The key-encryption key of receipt keys, derived once per configuration. */
const wrappingKeys = new WeakMap<Env, Promise<Buffer>>();
function wrappingKey(env: Env): Promise<Buffer> {
  let key = wrappingKeys.get(env);
  if (!key) {
    key = resolveSigningKey(env).then((signingKey) => deriveKey(signingKey, 'receipt-keys'));
    wrappingKeys.set(env, key);
  }
  return key;
}

/** base64(iv | tag | ciphertext) of a PKCS#8 private key, AES-256-GCM, bound to its kid. */
function seal(wrapping: Buffer, kid: string, pkcs8: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', wrapping, iv).setAAD(Buffer.from(kid));
  const ciphertext = Buffer.concat([cipher.update(pkcs8), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

function open(wrapping: Buffer, kid: string, stored: string): KeyObject {
  const bytes = Buffer.from(stored, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', wrapping, bytes.subarray(0, 12)).setAAD(Buffer.from(kid));
  decipher.setAuthTag(bytes.subarray(12, 28));
  const pkcs8 = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]);
  return createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
}

export type SigningKey = { kid: string; key: KeyObject };

/** Tries at making a missing key: a rotation between making one and reading it back retires it. */
const MAKE_ATTEMPTS = 3;

/**
 * The organization's active receipt key, made on first use. Two processes making it at once
 * agree on one (the partial unique index keeps a single active key; the loser reads the winner's).
 */
export async function activeReceiptKey(
  sql: Queryable,
  env: Env,
  orgId: string,
  attempts = 0,
): Promise<SigningKey> {
  const wrapping = await wrappingKey(env);
  const [found] = await sql<{ kid: string; private_key: string }[]>`
    select kid, private_key from receipt_keys where org_id = ${orgId} and retired_at is null`;
  if (found) return { kid: found.kid, key: open(wrapping, found.kid, found.private_key) };
  if (attempts >= MAKE_ATTEMPTS) throw new Error(`no receipt key for organization ${orgId} after making one`);
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const kid = uuidv7();
  const jwk = publicKey.export({ format: 'jwk' }) as Record<string, string>;
  const sealed = seal(wrapping, kid, privateKey.export({ format: 'der', type: 'pkcs8' }));
  await sql`insert into receipt_keys (kid, org_id, public_jwk, private_key)
            values (${kid}, ${orgId}, ${sql.json(jwk)}, ${sealed})
            on conflict (org_id) where retired_at is null do nothing`;
  return activeReceiptKey(sql, env, orgId, attempts + 1);
}

/** Retires the active key: the next receipt is signed with a new one; old ones still verify. */
export async function rotateReceiptKey(sql: Queryable, env: Env, orgId: string): Promise<string> {
  await sql`update receipt_keys set retired_at = now() where org_id = ${orgId} and retired_at is null`;
  return (await activeReceiptKey(sql, env, orgId)).kid;
}

/** The organization's public keys, active and retired, as a JWK Set (RFC 7517). */
export async function receiptJwks(sql: Queryable, orgId: string) {
  const rows = await sql<{ kid: string; public_jwk: Record<string, string> }[]>`
    select kid, public_jwk from receipt_keys where org_id = ${orgId} order by created_at`;
  return { keys: rows.map((r) => ({ ...r.public_jwk, kid: r.kid, alg: 'EdDSA', use: 'sig' })) };
}

/** Where an organization's receipt keys are published (both processes serve it). */
export const jwksUrl = (env: Env, orgId: string) =>
  `${env.RESOURCE_URL}/.well-known/jwks.json?org_id=${orgId}`;
