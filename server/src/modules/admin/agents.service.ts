import type { AgentView, CreateAgentInput } from '@beckon/contracts/admin/agents.contract';
import { uuidv7 } from 'uuidv7';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { recordOrgChange } from '../audit/audit.service';
import { enforcePlanLimit } from '../billing/plan-gate';

type AgentRow = Omit<AgentView, 'created_at'> & { created_at: Date };
const agentView = (row: AgentRow): AgentView => ({ ...row, created_at: row.created_at.toISOString() });

export async function listAgents(deps: Deps, identity: Identity): Promise<AgentView[]> {
  const now = deps.clock();
  const rows = await deps.sql<AgentRow[]>`
    select a.id, a.name, a.description, a.created_by, a.created_at,
           (select count(*)::int from api_keys k
             where k.org_id = a.org_id and k.agent_id = a.id and k.revoked_at is null
               and (k.expires_at is null or k.expires_at > ${now})) as active_keys
      from agents a where a.org_id = ${identity.orgId}
     order by a.created_at, a.id`;
  return rows.map(agentView);
}

/** Creates an agent within the plan's `agents` limit (402 at the limit). */
export async function createAgent(
  deps: Deps,
  identity: Identity,
  input: CreateAgentInput,
): Promise<AgentView> {
  const row = await deps.sql.begin(async (tx) => {
    await enforcePlanLimit(tx, deps.env, identity.orgId, 'agents');
    const [created] = await tx<AgentRow[]>`
      insert into agents (id, org_id, name, description, created_by)
      values (${uuidv7()}, ${identity.orgId}, ${input.name}, ${input.description ?? ''}, ${identity.userId})
      returning id, name, description, created_by, created_at, 0 as active_keys`;
    const agent = created as AgentRow;
    await recordOrgChange(tx, identity, 'agent.create', { agent_id: agent.id, name: agent.name });
    return agent;
  });
  return agentView(row);
}
