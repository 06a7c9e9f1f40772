import { z } from 'zod';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import { agentMeta, ZAgent, ZCreateAgentInput } from './agents.contract';
import { createAgent, listAgents } from './agents.service';
import {
  invitationMeta,
  ZCreatedInvitation,
  ZCreateInvitationInput,
  ZInvitation,
  ZRevokeInvitationInput,
} from './invitations.contract';
import { createInvitation, listInvitations, revokeInvitation } from './invitations.service';

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
  createInvitation: permissionProcedure('users.invite')
    .meta(invitationMeta.create)
    .input(ZCreateInvitationInput)
    .output(ZCreatedInvitation)
    .mutation(({ ctx, input }) => createInvitation(ctx.deps, ctx.identity, input)),
  listInvitations: permissionProcedure('users.invite')
    .meta(invitationMeta.list)
    .output(z.array(ZInvitation))
    .query(({ ctx }) => listInvitations(ctx.deps, ctx.identity)),
  revokeInvitation: permissionProcedure('users.invite')
    .meta(invitationMeta.revoke)
    .input(ZRevokeInvitationInput)
    .output(ZInvitation)
    .mutation(({ ctx, input }) => revokeInvitation(ctx.deps, ctx.identity, input.id)),
});
