import type {
  CreateEscalationPolicyInput,
  EscalationPolicyView,
  PolicyLevel,
  ReplaceEscalationPolicyInput,
} from '@beckon/contracts/schedules/escalation-policies.contract';
import type { Queryable } from '@beckon/db';
import { uuidv7 } from 'uuidv7';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';

type PolicyRow = Omit<EscalationPolicyView, 'created_at' | 'updated_at'> & {
  created_at: Date;
  updated_at: Date;
};

const COLUMNS = 'id, name, description, levels, repeats, created_at, updated_at';

const policyView = (row: PolicyRow): EscalationPolicyView => ({
  ...row,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

/** 400 naming each target that is not a member, a team or a schedule of the organization. */
async function checkTargets(sql: Queryable, orgId: string, levels: PolicyLevel[]) {
  const targets = levels.flatMap((level) => level.targets);
  const ids = (type: string) => targets.flatMap((t) => (t.type === type ? [t.id] : []));
  const known = await sql<{ key: string }[]>`
    select 'user:' || user_id::text as key from memberships where org_id = ${orgId} and user_id = any(${ids('user')}::uuid[])
    union all
    select 'team:' || id::text from teams where org_id = ${orgId} and id = any(${ids('team')}::uuid[])
    union all
    select 'schedule:' || id::text from schedules where org_id = ${orgId} and id = any(${ids('schedule')}::uuid[])`;
  const keys = new Set(known.map((row) => row.key));
  const fields: Record<string, string> = {};
  levels.forEach((level, i) => {
    level.targets.forEach((target, j) => {
      if (!keys.has(`${target.type}:${target.id}`))
        fields[`levels.${i}.targets.${j}`] = `unknown ${target.type}`;
    });
  });
  if (Object.keys(fields).length > 0) throw AppError.invalid(fields);
}

/** One of the organization's policies, or null. */
export async function findPolicy(
  sql: Queryable,
  orgId: string,
  id: string,
): Promise<EscalationPolicyView | null> {
  const [row] = await sql<PolicyRow[]>`
    select ${sql.unsafe(COLUMNS)} from escalation_policies where org_id = ${orgId} and id = ${id}`;
  return row ? policyView(row) : null;
}

export async function listPolicies(deps: Deps, identity: Identity): Promise<EscalationPolicyView[]> {
  const { sql } = deps;
  const rows = await sql<PolicyRow[]>`
    select ${sql.unsafe(COLUMNS)} from escalation_policies where org_id = ${identity.orgId} order by name collate "C"`;
  return rows.map(policyView);
}

export async function getPolicy(deps: Deps, identity: Identity, id: string): Promise<EscalationPolicyView> {
  const policy = await findPolicy(deps.sql, identity.orgId, id);
  if (!policy) throw AppError.notFound();
  return policy;
}

const nameTaken = () => AppError.conflict('name_taken', 'an escalation policy with this name exists');

export async function createPolicy(
  deps: Deps,
  identity: Identity,
  input: CreateEscalationPolicyInput,
): Promise<EscalationPolicyView> {
  const { sql } = deps;
  await checkTargets(sql, identity.orgId, input.levels);
  const row = await sql.begin(async (tx) => {
    const [saved] = await tx<PolicyRow[]>`
      insert into escalation_policies (id, org_id, name, description, levels, repeats)
      values (${uuidv7()}, ${identity.orgId}, ${input.name}, ${input.description ?? ''},
              ${tx.json(input.levels as never)}, ${input.repeats})
      on conflict (org_id, name) do nothing
      returning ${tx.unsafe(COLUMNS)}`;
    if (!saved) throw nameTaken();
    await recordOrgChange(tx, identity, 'escalation_policy.create', {
      policy_id: saved.id,
      name: saved.name,
    });
    return saved;
  });
  return policyView(row);
}

export async function replacePolicy(
  deps: Deps,
  identity: Identity,
  input: ReplaceEscalationPolicyInput,
): Promise<EscalationPolicyView> {
  const { sql } = deps;
  await getPolicy(deps, identity, input.id);
  await checkTargets(sql, identity.orgId, input.levels);
  const row = await sql.begin(async (tx) => {
    const [clash] = await tx`
      select 1 from escalation_policies where org_id = ${identity.orgId} and name = ${input.name} and id <> ${input.id}`;
    if (clash) throw nameTaken();
    const [saved] = await tx<PolicyRow[]>`
      update escalation_policies set name = ${input.name}, description = ${input.description ?? ''},
             levels = ${tx.json(input.levels as never)}, repeats = ${input.repeats}, updated_at = now()
       where org_id = ${identity.orgId} and id = ${input.id}
      returning ${tx.unsafe(COLUMNS)}`;
    if (!saved) throw AppError.notFound();
    await recordOrgChange(tx, identity, 'escalation_policy.update', {
      policy_id: saved.id,
      name: saved.name,
    });
    return saved;
  });
  return policyView(row);
}

/** Deletes a policy no channel or template names (409 `policy_in_use` listing them); items keep their steps. */
export async function deletePolicy(
  deps: Deps,
  identity: Identity,
  id: string,
): Promise<EscalationPolicyView> {
  const row = await deps.sql.begin(async (tx) => {
    const users = await tx<{ kind: 'channel' | 'template'; name: string }[]>`
      select 'channel' as kind, name from channels where org_id = ${identity.orgId} and escalation_policy_id = ${id}
      union all
      select 'template', name from templates
       where org_id = ${identity.orgId} and fields->>'escalation_policy_id' = ${id}::text
      order by 1, 2`;
    if (users.length > 0) {
      const named = (kind: string) => users.flatMap((u) => (u.kind === kind ? [u.name] : []));
      throw AppError.conflict('policy_in_use', 'channels or templates name this escalation policy', {
        channels: named('channel'),
        templates: named('template'),
      });
    }
    const [deleted] = await tx<PolicyRow[]>`
      delete from escalation_policies where org_id = ${identity.orgId} and id = ${id}
      returning ${tx.unsafe(COLUMNS)}`;
    if (!deleted) throw AppError.notFound();
    await recordOrgChange(tx, identity, 'escalation_policy.delete', {
      policy_id: deleted.id,
      name: deleted.name,
    });
    return deleted;
  });
  return policyView(row);
}
