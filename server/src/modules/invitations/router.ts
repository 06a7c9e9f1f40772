import { z } from 'zod';
import { router } from '../../trpc/init';
import { permissionProcedure, publicProcedure, sessionProcedure } from '../../trpc/procedures';
import { ZSessionGrant } from '../accounts/sessions';
import {
  invitationMeta,
  ZCreatedInvitation,
  ZCreateInvitationInput,
  ZInvitation,
  ZInvitationCodeInput,
  ZInvitationPreview,
  ZRevokeInvitationInput,
} from './invitations.contract';
import {
  acceptInvitation,
  createInvitation,
  listInvitations,
  previewInvitation,
  revokeInvitation,
} from './invitations.service';

/** Offering a place in an organization (resource process, under `admin`). */
export const invitationAdminRouter = router({
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

/** Reading and accepting an invitation (authorization process, under `accounts`). */
export const invitationAccountRouter = router({
  previewInvitation: publicProcedure
    .meta(invitationMeta.preview)
    .input(ZInvitationCodeInput)
    .output(ZInvitationPreview)
    .query(({ ctx, input }) => previewInvitation(ctx.deps, input.code)),
  acceptInvitation: sessionProcedure
    .meta(invitationMeta.accept)
    .input(ZInvitationCodeInput)
    .output(ZSessionGrant)
    .mutation(({ ctx, input }) => acceptInvitation(ctx.deps, ctx.identity, input.code)),
});
