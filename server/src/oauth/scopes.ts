import { AGENT_PERMISSIONS } from '@beckon/contracts/permissions';

/**
 * The scopes a third-party client may ask for: an agent's permissions. A token acts with the
 * person's role intersected with the scopes granted (see auth/identity.ts).
 */
export const OAUTH_SCOPES: readonly string[] = AGENT_PERMISSIONS;

/** How the consent page says what each scope allows. */
export const SCOPE_DESCRIPTIONS: Record<string, string> = {
  'items.read': 'see the notifications and questions of the organization, with their answers',
  'items.write': 'send notifications and questions, comment on them, answer and update them',
  'items.archive': 'archive and unarchive them',
};

/**
 * The scope of an authorization request as this server handles it: `openid` is dropped (no ID
 * tokens are issued), and a request that names none of our scopes asks for all of them (the
 * default RFC 6749 §3.3 allows; it is what an agent connecting to /mcp needs).
 */
export function authorizationScope(requested: string | undefined): string {
  const scopes = (requested ?? '').split(' ').filter((scope) => scope && scope !== 'openid');
  if (!scopes.some((scope) => OAUTH_SCOPES.includes(scope))) scopes.push(...OAUTH_SCOPES);
  return [...new Set(scopes)].join(' ');
}

/** The scopes of `scope` that are ours, in catalog order. */
export const ourScopes = (scope: string | undefined): string[] => {
  const requested = new Set((scope ?? '').split(' '));
  return OAUTH_SCOPES.filter((s) => requested.has(s));
};
