import { agentPermissions } from '@beckon/contracts/permissions';
import type { Sql } from '@beckon/db';
import type { Clock } from '../clock';
import type { CredentialCache } from './credential-cache';
import type { Identity } from './identity';
import { hashToken, orgOfToken } from './tokens';

type Row = {
  user_id: string;
  org_id: string;
  agent_id: string | null;
  kind: 'session' | 'api_key' | 'oauth';
  client_id: string | null;
  credential_id: string;
  role: string;
  permissions: string[];
  /** `own` for an API key restricted to its agent's items. */
  item_access: 'organization' | 'own' | null;
  /** The scopes granted to an OAuth access token (space-separated). */
  scope: string | null;
  expires_at: Date | null;
};

/**
 * One indexed round trip: the token's hash is looked up as a session, then an API key, then an
 * OAuth access token; only live credentials of a current member match. With a cache, answers are
 * kept until the database announces a change to the credential, membership or role.
 */
export async function resolveIdentity(
  deps: { sql: Sql; clock: Clock; credentials?: CredentialCache },
  token: string,
): Promise<Identity | null> {
  const { sql, credentials: cache } = deps;
  const hash = hashToken(token);
  const cached = cache?.get(hash);
  if (cached) return cached;
  const now = deps.clock();
  const startedAt = cache?.begin() ?? 0;
  const rows = await sql<Row[]>`
    with credential as (
      select s.user_id, s.org_id, null::uuid as agent_id, 'session' as kind, null as client_id,
             s.id::text as credential_id, null as scope, null as item_access, s.expires_at, 1 as rank
        from sessions s
       where s.token_hash = ${hash} and s.revoked_at is null and s.expires_at > ${now}
      union all
      select k.user_id, k.org_id, k.agent_id, 'api_key', null, k.id::text, null, k.item_access, k.expires_at, 2
        from api_keys k
       where k.org_id = ${credentialOrg(sql, token, hash)} and k.token_hash = ${hash} and k.revoked_at is null
         and (k.expires_at is null or k.expires_at > ${now})
      union all
      select o.user_id, o.org_id, null, 'oauth', o.client_id, o.id_hash, o.payload->>'scope', null,
             o.expires_at, 3
        from oauth_records o
       where o.model = 'AccessToken' and o.id_hash = ${hash} and o.consumed_at is null
         and (o.expires_at is null or o.expires_at > ${now})
    )
    select c.user_id, c.org_id, c.agent_id, c.kind, c.client_id, c.credential_id, c.scope,
           c.item_access, c.expires_at, r.name as role, r.permissions
      from credential c
      join memberships m on m.org_id = c.org_id and m.user_id = c.user_id
      join roles r on r.id = m.role_id
     order by c.rank
     limit 1`;
  const row = rows[0];
  if (!row) return null;
  const identity: Identity = {
    userId: row.user_id,
    orgId: row.org_id,
    agentId: row.agent_id,
    source: row.kind === 'api_key' ? 'api_key' : 'session',
    clientId: row.client_id,
    credentialId: row.credential_id,
    role: row.role,
    permissions: permissionsOf(row),
    ...(row.item_access === 'own' && row.agent_id ? { itemsOfAgent: row.agent_id } : {}),
  };
  cache?.set(hash, identity, row.expires_at, startedAt);
  return identity;
}

/**
 * The organization an API key or inbound webhook token belongs to, in SQL: the one it names, or
 * for a token made before tokens named it, the one recorded for its hash (legacy_credentials).
 */
const credentialOrg = (sql: Sql, token: string, hash: string) => {
  const named = orgOfToken(token);
  return named
    ? sql`${named}::uuid`
    : sql`(select org_id from legacy_credentials where token_hash = ${hash})`;
};

/**
 * A session acts with its role. An API key, and a third-party client's OAuth token, act as an
 * agent: the role intersected with the agent permissions, and for a token also with its scopes.
 */
function permissionsOf(row: Row): string[] {
  if (row.kind === 'session') return row.permissions;
  const agent = agentPermissions(row.permissions);
  if (row.kind === 'api_key') return agent;
  const scopes = new Set((row.scope ?? '').split(' '));
  return agent.filter((permission) => scopes.has(permission));
}

/**
 * An inbound webhook's URL token as a credential: it may create items in its organization
 * (`items.write`), as the webhook (actorOf). Stored hashed; an unknown token is null.
 */
export async function resolveInboundToken(sql: Sql, token: string): Promise<Identity | null> {
  const hash = hashToken(token);
  const [hook] = await sql<{ id: string; org_id: string; created_by: string | null }[]>`
    select id, org_id, created_by from inbound_webhooks
     where org_id = ${credentialOrg(sql, token, hash)} and token_hash = ${hash}`;
  if (!hook) return null;
  return {
    userId: hook.created_by ?? hook.id,
    orgId: hook.org_id,
    agentId: null,
    source: 'inbound_webhook',
    clientId: null,
    credentialId: hook.id,
    role: 'inbound webhook',
    permissions: ['items.write'],
  };
}
