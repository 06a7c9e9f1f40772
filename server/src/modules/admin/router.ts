import { adminProcedures } from '@beckon/contracts/admin/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import { createAgent, listAgents } from './agents.service';
import {
  changeMemberRole,
  getOrganization,
  getUsage,
  listMembers,
  removeMember,
  updateOrganization,
} from './members.service';
import { createRole, deleteRole, listRoles, updateRole } from './roles.service';
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
  listAgents: implement(permissionProcedure('agents.manage'), adminProcedures.listAgents).query(({ ctx }) =>
    listAgents(ctx.deps, ctx.identity),
  ),
  createAgent: implement(permissionProcedure('agents.manage'), adminProcedures.createAgent).mutation(
    ({ ctx, input }) => createAgent(ctx.deps, ctx.identity, input),
  ),
  listMembers: implement(permissionProcedure('users.invite'), adminProcedures.listMembers).query(({ ctx }) =>
    listMembers(ctx.deps, ctx.identity),
  ),
  changeMemberRole: implement(
    permissionProcedure('users.change_role'),
    adminProcedures.changeMemberRole,
  ).mutation(({ ctx, input }) => changeMemberRole(ctx.deps, ctx.identity, input)),
  removeMember: implement(permissionProcedure('users.remove'), adminProcedures.removeMember).mutation(
    ({ ctx, input }) => removeMember(ctx.deps, ctx.identity, input.user_id),
  ),
  org: implement(permissionProcedure('org.manage'), adminProcedures.org).query(({ ctx }) =>
    getOrganization(ctx.deps, ctx.identity),
  ),
  updateOrg: implement(permissionProcedure('org.manage'), adminProcedures.updateOrg).mutation(
    ({ ctx, input }) => updateOrganization(ctx.deps, ctx.identity, input),
  ),
  usage: implement(permissionProcedure('org.manage'), adminProcedures.usage).query(({ ctx }) =>
    getUsage(ctx.deps, ctx.identity),
  ),
  listRoles: implement(permissionProcedure('users.invite'), adminProcedures.listRoles).query(({ ctx }) =>
    listRoles(ctx.deps, ctx.identity),
  ),
  createRole: implement(permissionProcedure('users.change_role'), adminProcedures.createRole).mutation(
    ({ ctx, input }) => createRole(ctx.deps, ctx.identity, input),
  ),
  updateRole: implement(permissionProcedure('users.change_role'), adminProcedures.updateRole).mutation(
    ({ ctx, input }) => updateRole(ctx.deps, ctx.identity, input),
  ),
  deleteRole: implement(permissionProcedure('users.change_role'), adminProcedures.deleteRole).mutation(
    ({ ctx, input }) => deleteRole(ctx.deps, ctx.identity, input.role_id),
  ),
  listTeams: implement(permissionProcedure('teams.manage_members'), adminProcedures.listTeams).query(
    ({ ctx }) => listTeams(ctx.deps, ctx.identity),
  ),
  createTeam: implement(permissionProcedure('teams.create'), adminProcedures.createTeam).mutation(
    ({ ctx, input }) => createTeam(ctx.deps, ctx.identity, input),
  ),
  updateTeam: implement(permissionProcedure('teams.manage_members'), adminProcedures.updateTeam).mutation(
    ({ ctx, input }) => updateTeam(ctx.deps, ctx.identity, input),
  ),
  deleteTeam: implement(permissionProcedure('teams.delete'), adminProcedures.deleteTeam).mutation(
    ({ ctx, input }) => deleteTeam(ctx.deps, ctx.identity, input.team_id),
  ),
  listTeamMembers: implement(
    permissionProcedure('teams.manage_members'),
    adminProcedures.listTeamMembers,
  ).query(({ ctx, input }) => listTeamMembers(ctx.deps, ctx.identity, input.team_id)),
  addTeamMember: implement(
    permissionProcedure('teams.manage_members'),
    adminProcedures.addTeamMember,
  ).mutation(({ ctx, input }) => addTeamMember(ctx.deps, ctx.identity, input)),
  removeTeamMember: implement(
    permissionProcedure('teams.manage_members'),
    adminProcedures.removeTeamMember,
  ).mutation(({ ctx, input }) => removeTeamMember(ctx.deps, ctx.identity, input)),
});
