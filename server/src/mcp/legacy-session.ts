import type { Identity } from '../auth/identity';
import type { Env } from '../env';
import { APPS_EXTENSION, appsDeclared } from './app';
import { CLIENT_REQUESTS } from './conversation';
import { signState, verifyState } from './request-state';

/** How long a session id is honoured (a client initializes again after). */
const SESSION_TTL_SECONDS = 30 * 24 * 3600;

/**
 * What a client declared at `initialize` (2025-03-26 … 2025-11-25) that its later requests need:
 * MCP Apps support, and the requests it accepts from the server (sampling, elicitation, roots).
 * Beckon keeps no session: the declaration travels in the `Mcp-Session-Id` it returns (signed,
 * for this credential), which the client sends with every later request.
 */
export type LegacySession = {
  /** The session id the client sent, once verified (undefined: none, or not one of ours). */
  id: string | undefined;
  apps: boolean;
  /** The client capabilities its `initialize` declared, among those of CLIENT_REQUESTS. */
  accepts: string[];
};

export const NO_SESSION: LegacySession = { id: undefined, apps: false, accepts: [] };

/** The session an `initialize` opens, from the client's declared capabilities. */
export function declaredAtInitialize(capabilities: unknown): Omit<LegacySession, 'id'> {
  const declared = (capabilities && typeof capabilities === 'object' ? capabilities : {}) as Record<
    string,
    unknown
  >;
  const accepts = [...new Set(Object.values(CLIENT_REQUESTS))].filter(
    (capability) => declared[capability] !== undefined && declared[capability] !== null,
  );
  return { apps: appsDeclared(capabilities), accepts };
}

/** The signed session id that carries `session` to the client's later requests. */
export const issueSession = (env: Env, identity: Identity, session: Omit<LegacySession, 'id'>) =>
  signState(
    env,
    {
      i: session.apps ? APPS_EXTENSION : 'mcp',
      o: identity.orgId,
      c: identity.credentialId,
      e: Math.floor(Date.now() / 1000) + SESSION_TTL_SECONDS,
      ...(session.accepts.length ? { k: session.accepts } : {}),
    },
    'mcp session',
  );

/** The session of a request's `Mcp-Session-Id`, when it is one Beckon issued to this credential. */
export async function sessionOf(env: Env, identity: Identity, header: unknown): Promise<LegacySession> {
  if (typeof header !== 'string') return NO_SESSION;
  const state = await verifyState(
    env,
    header,
    { orgId: identity.orgId, credentialId: identity.credentialId },
    'mcp session',
  );
  if (!state) return NO_SESSION;
  return { id: header, apps: state.i === APPS_EXTENSION, accepts: state.k ?? [] };
}
