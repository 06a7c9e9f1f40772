import { randomUUID } from 'node:crypto';
import { AGENT_PERMISSIONS } from '@beckon/contracts/permissions';
import { schema } from '@beckon/db';
import { generateToken, hashToken } from '@beckon/server/auth/tokens';
import type { TestServer } from '../harness';
import type { Sessions } from './access-checks';
import type { Tenant } from './tenants';

/**
 * Members of `tenant` with custom roles (a role row with exactly the permissions asked for,
 * `'{}'` included), each call signed in afresh: a call may end its own session (logout).
 */
export function sessionsOf(server: TestServer, tenant: Tenant): Sessions {
  const roles = new Map<string, Promise<string>>();
  const role = (permissions: string[]) => {
    const key = [...permissions].sort().join(' ');
    if (!roles.has(key)) {
      roles.set(
        key,
        server.database.db
          .insert(schema.roles)
          .values({ orgId: tenant.id, name: `sweep ${key || 'nothing'}`, permissions })
          .returning()
          .then(([row]) => row!.id),
      );
    }
    return roles.get(key)!;
  };
  const signedIn = async (permissions: string[]) => {
    const user = await tenant.factories.user();
    await tenant.factories.member(tenant.id, user.id, { id: await role(permissions) });
    return (await tenant.factories.session(user.id, tenant.id)).token;
  };
  return { none: () => signedIn([]), only: signedIn };
}

/** An API key of the tenant's owner (organization-wide, or `own`: only its agent's items). */
export async function ownerKey(tenant: Tenant, itemAccess: 'organization' | 'own' = 'organization') {
  const key = await tenant.factories.apiKey(tenant.id, tenant.userId);
  if (itemAccess === 'own') await tenant.sql`update api_keys set item_access = 'own' where id = ${key.id}`;
  return key;
}

/**
 * An OAuth access token issued to a third-party client for the tenant's owner, with every item
 * scope: stored as the authorization server stores one (by its hash, model AccessToken).
 */
export async function thirdPartyToken(tenant: Tenant) {
  const token = generateToken();
  await tenant.sql`
    insert into oauth_records (model, id_hash, payload, user_id, org_id, client_id, expires_at)
    values ('AccessToken', ${hashToken(token)}, ${tenant.sql.json({ scope: AGENT_PERMISSIONS.join(' ') })},
            ${tenant.userId}, ${tenant.id}, ${`sweep-client-${randomUUID()}`}, now() + interval '1 hour')`;
  return token;
}
