import type { IdentityView } from '@beckon/contracts/identity/identity.contract';
import type { Identity } from '../../auth/identity';

/** The identity object of the specification (ZIdentityView) for a resolved identity. */
export const identityView = (identity: Identity): IdentityView => ({
  user_id: identity.userId,
  org_id: identity.orgId,
  agent_id: identity.agentId,
  // Only bearer credentials reach /me; an inbound webhook's token is accepted on its own route alone.
  source: identity.source === 'session' ? 'session' : 'api_key',
  ...(identity.clientId ? { client_id: identity.clientId } : {}),
  role: identity.role,
  permissions: identity.permissions,
});
