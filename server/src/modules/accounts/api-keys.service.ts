import type { ApiKeyView, CreateApiKeyInput } from '@beckon/contracts/accounts/api-keys.contract';
import { can } from '@beckon/contracts/permissions';
import { uuidv7 } from 'uuidv7';
import type { Identity } from '../../auth/identity';
import { generateOrgToken, hashToken } from '../../auth/tokens';
import { fenceCaches } from '../../caches/fence';
import { addDays } from '../../clock';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';

type KeyRow = Omit<ApiKeyView, 'created_at' | 'expires_at' | 'revoked_at'> & {
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
};

const keyView = (row: KeyRow): ApiKeyView => ({
  ...row,
  created_at: row.created_at.toISOString(),
  expires_at: row.expires_at?.toISOString() ?? null,
  revoked_at: row.revoked_at?.toISOString() ?? null,
});

/** A key for one of the organization's agents, owned by the caller; the key is shown once. */
export async function createApiKey(deps: Deps, identity: Identity, input: CreateApiKeyInput) {
  const key = generateOrgToken(identity.orgId);
  const now = deps.clock();
  const expiresAt = addDays(now, input.expires_in_days);
  const id = uuidv7();
  await deps.sql.begin(async (tx) => {
    const [agent] =
      await tx`select id from agents where id = ${input.agent_id} and org_id = ${identity.orgId}`;
    if (!agent) throw AppError.notFound();
    await tx`insert into api_keys (id, token_hash, org_id, agent_id, user_id, label, item_access, created_at, expires_at)
             values (${id}, ${hashToken(key)}, ${identity.orgId}, ${input.agent_id}, ${identity.userId},
                     ${input.label}, ${input.item_access}, ${now}, ${expiresAt})`;
    await recordOrgChange(tx, identity, 'api_key.create', {
      key_id: id,
      agent_id: input.agent_id,
      label: input.label,
      item_access: input.item_access,
    });
  });
  const { agent_id, label, item_access } = input;
  return { id, key, agent_id, label, item_access, expires_at: expiresAt.toISOString() };
}

const KEY_COLUMNS =
  'k.id, k.agent_id, a.name as agent_name, k.label, k.item_access, k.created_at, k.expires_at, k.revoked_at';

/** The caller's keys in the current organization, newest first (revoked ones included). */
export async function listApiKeys(deps: Deps, identity: Identity): Promise<ApiKeyView[]> {
  const rows = await deps.sql<KeyRow[]>`
    select ${deps.sql.unsafe(KEY_COLUMNS)} from api_keys k join agents a on a.org_id = k.org_id and a.id = k.agent_id
     where k.org_id = ${identity.orgId} and k.user_id = ${identity.userId}
     order by k.created_at desc, k.id desc`;
  return rows.map(keyView);
}

/**
 * Soft-revokes a key of the caller (or any key of the organization with agents.manage).
 * Revoking twice keeps the first revoked_at. Another organization's key is a 404.
 */
export async function revokeApiKey(deps: Deps, identity: Identity, keyId: string): Promise<ApiKeyView> {
  const anyKey = can(identity.permissions, 'agents.manage');
  const now = deps.clock();
  const revoked = await deps.sql.begin(async (tx) => {
    const [row] = await tx<KeyRow[]>`
      update api_keys k set revoked_at = coalesce(k.revoked_at, ${now})
        from agents a
       where a.org_id = k.org_id and a.id = k.agent_id and k.id = ${keyId} and k.org_id = ${identity.orgId}
         and (${anyKey} or k.user_id = ${identity.userId})
      returning ${tx.unsafe(KEY_COLUMNS)}`;
    if (!row) throw AppError.notFound();
    await recordOrgChange(tx, identity, 'api_key.revoke', { key_id: keyId, agent_id: row.agent_id });
    return keyView(row);
  });
  await fenceCaches(deps);
  return revoked;
}
