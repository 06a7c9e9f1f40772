import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Env } from '../env';
import { deriveKey } from '../oauth/keys';
import { resolveSigningKey } from '../signing-key';

/**
 * The `requestState` of a question asked in the chat (2026-07-28 multi round-trip requests): which
 * item, asked by which credential of which organization, until when. Signed, so a client can only
 * hand back what it was given; opaque to it.
 */
export type AskState = { i: string; o: string; c: string; e: number };

const keys = new WeakMap<Env, Promise<Buffer>>();
const keyOf = (env: Env) => {
  let key = keys.get(env);
  if (!key) {
    key = resolveSigningKey(env).then((signing) => deriveKey(signing, 'mcp request state'));
    keys.set(env, key);
  }
  return key;
};
const mac = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest('base64url');

export async function signState(env: Env, state: AskState): Promise<string> {
  const payload = Buffer.from(JSON.stringify(state)).toString('base64url');
  return `${payload}.${mac(await keyOf(env), payload)}`;
}

/** The state, if it is ours, unexpired, and given back by the organization's same credential. */
export async function verifyState(
  env: Env,
  token: string,
  who: { orgId: string; credentialId: string },
): Promise<AskState | null> {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return null;
  const expected = Buffer.from(mac(await keyOf(env), payload));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const state = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as AskState;
    if (state.o !== who.orgId || state.c !== who.credentialId || state.e * 1000 <= Date.now()) return null;
    return state;
  } catch {
    return null;
  }
}
