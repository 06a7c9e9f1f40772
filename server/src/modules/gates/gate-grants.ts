import { GATE_METADATA_KEY, type GateGrantView } from '@beckon/contracts/gate/gate.contract';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';
import { getItem } from '../items/operations/read-items';

type GrantRow = {
  id: string;
  rule: string;
  agent_id: string | null;
  item_id: string;
  granted_by: string;
  note: string | null;
  created_at: Date;
  expires_at: Date;
};

const COLUMNS = 'id, rule, agent_id, item_id, granted_by, note, created_at, expires_at';

const grantView = (row: GrantRow): GateGrantView => ({
  id: row.id,
  rule: row.rule,
  agent_id: row.agent_id,
  item_id: row.item_id,
  granted_by: { type: 'user', id: row.granted_by },
  note: row.note,
  created_at: row.created_at.toISOString(),
  expires_at: row.expires_at.toISOString(),
});

/** Whose grants a credential uses: its agent's, or (a person's credential) that person's own. */
const ownedBy = (deps: Deps, identity: Identity) =>
  identity.agentId
    ? deps.sql`agent_id = ${identity.agentId}`
    : deps.sql`agent_id is null and user_id = ${identity.userId}`;

/** The caller's grant in force for `rule` (the one lasting longest), or null. */
export async function grantInForce(
  deps: Deps,
  identity: Identity,
  rule: string,
): Promise<GateGrantView | null> {
  const [row] = await deps.sql<GrantRow[]>`
    select ${deps.sql.unsafe(COLUMNS)} from gate_grants
     where org_id = ${identity.orgId} and ${ownedBy(deps, identity)} and rule = ${rule}
       and expires_at > now()
     order by expires_at desc limit 1`;
  return row ? grantView(row) : null;
}

/** The gate part of an item's metadata, when it is a gate request. */
export function gateOf(metadata: Record<string, unknown>): { rule: string; grant_minutes: number } | null {
  const gate = metadata[GATE_METADATA_KEY] as { rule?: unknown; grant_minutes?: unknown } | undefined;
  if (typeof gate?.rule !== 'string' || typeof gate.grant_minutes !== 'number') return null;
  return { rule: gate.rule, grant_minutes: gate.grant_minutes };
}

/**
 * The grant of a gate request a person answered "allow_for": it lasts the request's
 * `grant_minutes` from the answer. Only the credential that asked may record it; recording it
 * again answers the same grant. Expired grants of any organization are purged on the way.
 */
export async function grantFromAnswer(
  deps: Deps,
  identity: Identity,
  itemId: string,
): Promise<GateGrantView> {
  const item = await getItem(deps, identity, itemId);
  const mine = identity.agentId
    ? item.agent_id === identity.agentId
    : item.agent_id === null && item.created_by.type === 'user' && item.created_by.id === identity.userId;
  if (!mine)
    throw AppError.forbidden(
      'not_the_requester',
      'only the credential that made a gate request can record its grant',
    );
  const gate = gateOf(item.metadata);
  if (!gate || !item.form) throw AppError.conflict('not_a_gate_request', 'not a gate request');
  const decision = item.response?.decision;
  const person = item.answered_by?.type === 'user' ? item.answered_by.id : null;
  if (item.status !== 'answered' || decision !== 'allow_for' || !person || !item.answered_at) {
    throw AppError.conflict('no_time_granted', 'the answer grants no time', {
      status: item.status,
      decision: decision ?? null,
    });
  }
  const note =
    typeof item.response?.note === 'string' && item.response.note.trim() ? item.response.note : null;
  const expires = new Date(Date.parse(item.answered_at) + gate.grant_minutes * 60_000);
  return deps.sql.begin(async (tx) => {
    const [created] = await tx<GrantRow[]>`
      with purged as (
        delete from gate_grants where org_id = ${identity.orgId} and id in (
          select id from gate_grants where org_id = ${identity.orgId} and expires_at < now()
           limit 100 for update skip locked))
      insert into gate_grants (id, org_id, agent_id, user_id, rule, item_id, granted_by, note, expires_at)
      values (uuidv7(), ${identity.orgId}, ${identity.agentId}, ${identity.userId}, ${gate.rule}, ${item.id},
              ${person}, ${note}, ${expires})
      on conflict (org_id, item_id) do nothing
      returning ${tx.unsafe(COLUMNS)}`;
    if (created) {
      await recordOrgChange(tx, identity, 'gate.grant', {
        grant_id: created.id,
        item_id: item.id,
        rule: gate.rule,
        expires_at: expires.toISOString(),
      });
      return grantView(created);
    }
    const [existing] = await tx<GrantRow[]>`
      select ${tx.unsafe(COLUMNS)} from gate_grants where item_id = ${item.id} and org_id = ${identity.orgId}`;
    if (!existing) throw AppError.notFound();
    return grantView(existing);
  });
}

/** Grants in force: an agent's own; a person's credential sees the organization's. */
export async function listGrants(deps: Deps, identity: Identity): Promise<GateGrantView[]> {
  const rows = await deps.sql<GrantRow[]>`
    select ${deps.sql.unsafe(COLUMNS)} from gate_grants
     where org_id = ${identity.orgId} and expires_at > now()
       ${identity.agentId ? deps.sql`and agent_id = ${identity.agentId}` : deps.sql``}
     order by expires_at, id`;
  return rows.map(grantView);
}

/** Ends a grant at once (an agent: only its own). */
export async function revokeGrant(deps: Deps, identity: Identity, id: string): Promise<GateGrantView> {
  return deps.sql.begin(async (tx) => {
    const [row] = await tx<GrantRow[]>`
      delete from gate_grants
       where id = ${id} and org_id = ${identity.orgId}
         ${identity.agentId ? tx`and agent_id = ${identity.agentId}` : tx``}
      returning ${tx.unsafe(COLUMNS)}`;
    if (!row) throw AppError.notFound();
    await recordOrgChange(tx, identity, 'gate.revoke', { grant_id: row.id, rule: row.rule });
    return grantView(row);
  });
}
