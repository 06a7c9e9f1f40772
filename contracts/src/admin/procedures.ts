import { z } from 'zod';
import { mutation, query } from '../procedure';
import { agentMeta, ZAgent, ZCreateAgentInput } from './agents.contract';
import {
  memberMeta,
  ZAdminOrg,
  ZChangeRoleInput,
  ZMember,
  ZMemberRef,
  ZRemovedMember,
  ZUpdateOrgInput,
  ZUsage,
} from './members.contract';
import { roleMeta, ZCreateRoleInput, ZRole, ZRoleRef, ZUpdateRoleInput } from './roles.contract';
import {
  teamMeta,
  ZCreateTeamInput,
  ZTeam,
  ZTeamMember,
  ZTeamMemberRef,
  ZTeamRef,
  ZUpdateTeamInput,
} from './teams.contract';

export const adminProcedures = {
  listAgents: query({ meta: agentMeta.list, output: z.array(ZAgent) }),
  createAgent: mutation({ meta: agentMeta.create, input: ZCreateAgentInput, output: ZAgent }),
  listMembers: query({ meta: memberMeta.list, output: z.array(ZMember) }),
  changeMemberRole: mutation({ meta: memberMeta.changeRole, input: ZChangeRoleInput, output: ZMember }),
  removeMember: mutation({ meta: memberMeta.deactivate, input: ZMemberRef, output: ZRemovedMember }),
  org: query({ meta: memberMeta.org, output: ZAdminOrg }),
  updateOrg: mutation({ meta: memberMeta.updateOrg, input: ZUpdateOrgInput, output: ZAdminOrg }),
  usage: query({ meta: memberMeta.usage, output: ZUsage }),
  listRoles: query({ meta: roleMeta.list, output: z.array(ZRole) }),
  createRole: mutation({ meta: roleMeta.create, input: ZCreateRoleInput, output: ZRole }),
  updateRole: mutation({ meta: roleMeta.update, input: ZUpdateRoleInput, output: ZRole }),
  deleteRole: mutation({ meta: roleMeta.delete, input: ZRoleRef, output: ZRole }),
  listTeams: query({ meta: teamMeta.list, output: z.array(ZTeam) }),
  createTeam: mutation({ meta: teamMeta.create, input: ZCreateTeamInput, output: ZTeam }),
  updateTeam: mutation({ meta: teamMeta.update, input: ZUpdateTeamInput, output: ZTeam }),
  deleteTeam: mutation({ meta: teamMeta.delete, input: ZTeamRef, output: ZTeam }),
  listTeamMembers: query({ meta: teamMeta.members, input: ZTeamRef, output: z.array(ZTeamMember) }),
  addTeamMember: mutation({ meta: teamMeta.addMember, input: ZTeamMemberRef, output: ZTeamMember }),
  removeTeamMember: mutation({ meta: teamMeta.removeMember, input: ZTeamMemberRef, output: ZTeamMember }),
};
