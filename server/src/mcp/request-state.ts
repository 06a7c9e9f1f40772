import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Env } from '../env';
import { deriveKey } from '../oauth/keys';
import { resolveSigningKey } from '../signing-key';

/**
 * The `requestState` of a question asked in the chat (2026-07-28 multi round-trip requests): which
 * item, asked by which credential of which organization, until when. Signed, so a client can only
 * hand back what it was given; opaque to it.
 */
export type AskState = {
  i: string;
  o: string;
  c: string;
  e: number;
  /** In a session id: the client capabilities its `initialize` declared (legacy-session.ts). */
  k?: string[];
};

/**
 * What a signed value is for: a question's `requestState`, or the session id that carries what a
 * client declared at `initialize` (its MCP Apps support) to its later requests. Each has its own key,
 * so one can never be handed back as the other.
 */
type Purpose = 'mcp request state' | 'mcp session';

const keys = new WeakMap<Env, Map<Purpose, Promise<Buffer>>>();
const keyOf = (env: Env, purpose: Purpose) => {
  let byPurpose = keys.get(env);
  if (!byPurpose) {
    byPurpose = new Map();
    keys.set(env, byPurpose);
  }
  let key = byPurpose.get(purpose);
  if (!key) {
    key = resolveSigningKey(env).then((signing) => deriveKey(signing, purpose));
    byPurpose.set(purpose, key);
  }
  return key;
};
const mac = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest('base64url');

export async function signState(
  env: Env,
  state: AskState,
  purpose: Purpose = 'mcp request state',
): Promise<string> {
  const payload = Buffer.from(JSON.stringify(state)).toString('base64url');
  return `${payload}.${mac(await keyOf(env, purpose), payload)}`;
}

/** The state, if it is ours, unexpired, and given back by the organization's same credential. */
export async function verifyState(
  env: Env,
  token: string,
  who: { orgId: string; credentialId: string },
  purpose: Purpose = 'mcp request state',
): Promise<AskState | null> {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return null;
  const expected = Buffer.from(mac(await keyOf(env, purpose), payload));
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
