import type { Queryable } from '@beckon/db';
import type { Identity, IdentitySource } from './identity';

/**
 * A person acting in an organization through a channel other than a bearer token (a signed link
 * from a mail): their current membership and role, as a session would resolve them. Null when
 * they are no longer a member.
 */
export async function memberIdentity(
  sql: Queryable,
  person: { orgId: string; userId: string },
  source: Exclude<IdentitySource, 'session' | 'api_key' | 'inbound_webhook'>,
  credentialId: string,
): Promise<Identity | null> {
  const [row] = await sql<{ role: string; permissions: string[] }[]>`
    select r.name as role, r.permissions
      from memberships m join roles r on r.id = m.role_id
     where m.org_id = ${person.orgId} and m.user_id = ${person.userId}`;
  if (!row) return null;
  return {
    userId: person.userId,
    orgId: person.orgId,
    agentId: null,
    source,
    clientId: null,
    credentialId,
    role: row.role,
    permissions: row.permissions,
  };
}
