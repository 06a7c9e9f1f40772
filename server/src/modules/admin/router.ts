import { z } from 'zod';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import { agentMeta, ZAgent, ZCreateAgentInput } from './agents.contract';
import { createAgent, listAgents } from './agents.service';
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
import {
  changeMemberRole,
  getOrganization,
  getUsage,
  listMembers,
  removeMember,
  updateOrganization,
} from './members.service';
import { roleMeta, ZCreateRoleInput, ZRole, ZRoleRef, ZUpdateRoleInput } from './roles.contract';
import { createRole, deleteRole, listRoles, updateRole } from './roles.service';
import {
  teamMeta,
  ZCreateTeamInput,
  ZTeam,
  ZTeamMember,
  ZTeamMemberRef,
  ZTeamRef,
  ZUpdateTeamInput,
} from './teams.contract';
import {
  addTeamMember,
  createTeam,
  deleteTeam,
  listTeamMembers,
  listTeams,
  removeTeamMember,
  updateTeam,
} from './teams.service';

/** Organization administration on the resource process (/api/admin/...), permission per handler. */
export const adminRouter = router({
  listAgents: permissionProcedure('agents.manage')
    .meta(agentMeta.list)
    .output(z.array(ZAgent))
    .query(({ ctx }) => listAgents(ctx.deps, ctx.identity)),
  createAgent: permissionProcedure('agents.manage')
    .meta(agentMeta.create)
    .input(ZCreateAgentInput)
    .output(ZAgent)
    .mutation(({ ctx, input }) => createAgent(ctx.deps, ctx.identity, input)),
  listMembers: permissionProcedure('users.invite')
    .meta(memberMeta.list)
    .output(z.array(ZMember))
    .query(({ ctx }) => listMembers(ctx.deps, ctx.identity)),
  changeMemberRole: permissionProcedure('users.change_role')
    .meta(memberMeta.changeRole)
    .input(ZChangeRoleInput)
    .output(ZMember)
    .mutation(({ ctx, input }) => changeMemberRole(ctx.deps, ctx.identity, input)),
  removeMember: permissionProcedure('users.remove')
    .meta(memberMeta.deactivate)
    .input(ZMemberRef)
    .output(ZRemovedMember)
    .mutation(({ ctx, input }) => removeMember(ctx.deps, ctx.identity, input.user_id)),
  org: permissionProcedure('org.manage')
    .meta(memberMeta.org)
    .output(ZAdminOrg)
    .query(({ ctx }) => getOrganization(ctx.deps, ctx.identity)),
  updateOrg: permissionProcedure('org.manage')
    .meta(memberMeta.updateOrg)
    .input(ZUpdateOrgInput)
    .output(ZAdminOrg)
    .mutation(({ ctx, input }) => updateOrganization(ctx.deps, ctx.identity, input)),
  usage: permissionProcedure('org.manage')
    .meta(memberMeta.usage)
    .output(ZUsage)
    .query(({ ctx }) => getUsage(ctx.deps, ctx.identity)),
  listRoles: permissionProcedure('users.invite')
    .meta(roleMeta.list)
    .output(z.array(ZRole))
    .query(({ ctx }) => listRoles(ctx.deps, ctx.identity)),
  createRole: permissionProcedure('users.change_role')
    .meta(roleMeta.create)
    .input(ZCreateRoleInput)
    .output(ZRole)
    .mutation(({ ctx, input }) => createRole(ctx.deps, ctx.identity, input)),
  updateRole: permissionProcedure('users.change_role')
    .meta(roleMeta.update)
    .input(ZUpdateRoleInput)
    .output(ZRole)
    .mutation(({ ctx, input }) => updateRole(ctx.deps, ctx.identity, input)),
  deleteRole: permissionProcedure('users.change_role')
    .meta(roleMeta.delete)
    .input(ZRoleRef)
    .output(ZRole)
    .mutation(({ ctx, input }) => deleteRole(ctx.deps, ctx.identity, input.role_id)),
  listTeams: permissionProcedure('teams.manage_members')
    .meta(teamMeta.list)
    .output(z.array(ZTeam))
    .query(({ ctx }) => listTeams(ctx.deps, ctx.identity)),
  createTeam: permissionProcedure('teams.create')
    .meta(teamMeta.create)
    .input(ZCreateTeamInput)
    .output(ZTeam)
    .mutation(({ ctx, input }) => createTeam(ctx.deps, ctx.identity, input)),
  updateTeam: permissionProcedure('teams.manage_members')
    .meta(teamMeta.update)
    .input(ZUpdateTeamInput)
    .output(ZTeam)
    .mutation(({ ctx, input }) => updateTeam(ctx.deps, ctx.identity, input)),
  deleteTeam: permissionProcedure('teams.delete')
    .meta(teamMeta.delete)
    .input(ZTeamRef)
    .output(ZTeam)
    .mutation(({ ctx, input }) => deleteTeam(ctx.deps, ctx.identity, input.team_id)),
  listTeamMembers: permissionProcedure('teams.manage_members')
    .meta(teamMeta.members)
    .input(ZTeamRef)
    .output(z.array(ZTeamMember))
    .query(({ ctx, input }) => listTeamMembers(ctx.deps, ctx.identity, input.team_id)),
  addTeamMember: permissionProcedure('teams.manage_members')
    .meta(teamMeta.addMember)
    .input(ZTeamMemberRef)
    .output(ZTeamMember)
    .mutation(({ ctx, input }) => addTeamMember(ctx.deps, ctx.identity, input)),
  removeTeamMember: permissionProcedure('teams.manage_members')
    .meta(teamMeta.removeMember)
    .input(ZTeamMemberRef)
    .output(ZTeamMember)
    .mutation(({ ctx, input }) => removeTeamMember(ctx.deps, ctx.identity, input)),
});
