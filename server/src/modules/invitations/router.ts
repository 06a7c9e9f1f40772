import {
  invitationAccountProcedures,
  invitationAdminProcedures,
} from '@beckon/contracts/invitations/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { permissionProcedure, publicProcedure, sessionProcedure } from '../../trpc/procedures';
import {
  acceptInvitation,
  createInvitation,
  listInvitations,
  previewInvitation,
  revokeInvitation,
} from './invitations.service';

/** Offering a place in an organization (resource process, under `admin`). */
export const invitationAdminRouter = router({
  createInvitation: implement(
    permissionProcedure('users.invite'),
    invitationAdminProcedures.createInvitation,
  ).mutation(({ ctx, input }) => createInvitation(ctx.deps, ctx.identity, input)),
  listInvitations: implement(
    permissionProcedure('users.invite'),
    invitationAdminProcedures.listInvitations,
  ).query(({ ctx }) => listInvitations(ctx.deps, ctx.identity)),
  revokeInvitation: implement(
    permissionProcedure('users.invite'),
    invitationAdminProcedures.revokeInvitation,
  ).mutation(({ ctx, input }) => revokeInvitation(ctx.deps, ctx.identity, input.id)),
});

/** Reading and accepting an invitation (authorization process, under `accounts`). */
export const invitationAccountRouter = router({
  previewInvitation: implement(publicProcedure, invitationAccountProcedures.previewInvitation).query(
    ({ ctx, input }) => previewInvitation(ctx.deps, input.code),
  ),
  acceptInvitation: implement(sessionProcedure, invitationAccountProcedures.acceptInvitation).mutation(
    ({ ctx, input }) => acceptInvitation(ctx.deps, ctx.identity, input.code),
  ),
});
