import { z } from 'zod';
import { ZSessionGrant } from '../accounts/account.contract';
import { mutation, query } from '../procedure';
import {
  invitationMeta,
  ZCreatedInvitation,
  ZCreateInvitationInput,
  ZInvitation,
  ZInvitationCodeInput,
  ZInvitationPreview,
  ZRevokeInvitationInput,
} from './invitations.contract';

export const invitationAdminProcedures = {
  createInvitation: mutation({
    meta: invitationMeta.create,
    input: ZCreateInvitationInput,
    output: ZCreatedInvitation,
  }),
  listInvitations: query({ meta: invitationMeta.list, output: z.array(ZInvitation) }),
  revokeInvitation: mutation({
    meta: invitationMeta.revoke,
    input: ZRevokeInvitationInput,
    output: ZInvitation,
  }),
};

export const invitationAccountProcedures = {
  previewInvitation: query({
    meta: invitationMeta.preview,
    input: ZInvitationCodeInput,
    output: ZInvitationPreview,
  }),
  acceptInvitation: mutation({
    meta: invitationMeta.accept,
    input: ZInvitationCodeInput,
    output: ZSessionGrant,
  }),
};
