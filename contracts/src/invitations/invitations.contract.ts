import { z } from 'zod';
import type { Meta } from '../meta';

export const DEFAULT_INVITATION_DAYS = 7;

export const ZCreateInvitationInput = z
  .strictObject({
    kind: z
      .enum(['email', 'link'])
      .describe('email: bound to one address, used once; link: anyone with the code, up to max_uses'),
    email: z.email().max(320).optional().describe('Required for email invitations'),
    role_id: z.uuid(),
    expires_in_days: z.number().int().min(1).max(90).default(DEFAULT_INVITATION_DAYS),
    max_uses: z.number().int().min(1).max(10_000).optional().describe('Link invitations only (default 1)'),
  })
  .superRefine((input, ctx) => {
    if (input.kind === 'email' && !input.email) {
      ctx.addIssue({ code: 'custom', path: ['email'], message: 'is required for an email invitation' });
    }
    if (input.kind === 'link' && input.email) {
      ctx.addIssue({ code: 'custom', path: ['email'], message: 'only email invitations take an address' });
    }
    if (input.kind === 'email' && input.max_uses !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['max_uses'], message: 'an email invitation is used once' });
    }
  });
export type CreateInvitationInput = z.infer<typeof ZCreateInvitationInput>;

export const ZInvitation = z
  .object({
    id: z.uuid(),
    kind: z.enum(['email', 'link']),
    email: z.string().nullable(),
    role: z.object({ id: z.uuid(), name: z.string() }),
    max_uses: z.number().int(),
    use_count: z.number().int(),
    expires_at: z.string(),
    revoked_at: z.string().nullable(),
    created_by: z.uuid().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'Invitation' });
export type InvitationView = z.infer<typeof ZInvitation>;

export const ZCreatedInvitation = ZInvitation.extend({
  code: z.string().describe('The invitation code; shown this once'),
  url: z.string().describe('Link to the dashboard page that accepts it'),
}).meta({ id: 'CreatedInvitation' });

export const ZRevokeInvitationInput = z.strictObject({ id: z.uuid() });

export const ZInvitationCodeInput = z.strictObject({ code: z.string().min(1).max(200) });

export const ZInvitationPreview = z
  .object({
    org: z.object({ name: z.string() }),
    role: z.object({ name: z.string(), description: z.string() }),
    kind: z.enum(['email', 'link']),
    expires_at: z.string(),
  })
  .meta({ id: 'InvitationPreview' });

const tags = ['invitations'];
const protect = true;
export const invitationMeta = {
  create: {
    status: 201,
    oneTimeSecret: true,
    openapi: {
      method: 'POST',
      path: '/admin/invitations',
      protect,
      tags,
      summary: 'Invite by email or by link (users.invite)',
      description:
        'The inviter must hold every permission of the role. Email invitations are mailed when SMTP is configured.',
    },
  },
  list: {
    openapi: {
      method: 'GET',
      path: '/admin/invitations',
      protect,
      tags,
      summary: 'Active invitations (users.invite)',
    },
  },
  revoke: {
    openapi: {
      method: 'POST',
      path: '/admin/invitations/{id}/revoke',
      protect,
      tags,
      summary: 'Revoke (users.invite)',
    },
  },
  preview: {
    openapi: {
      method: 'GET',
      path: '/invitations/{code}',
      protect: false,
      tags,
      summary: 'Preview an invitation (organization, role, expiry; no secrets)',
      description: '404 for an unknown code, 410 once revoked, expired or used up.',
    },
  },
  accept: {
    openapi: {
      method: 'POST',
      path: '/invitations/accept',
      protect,
      tags,
      summary: 'Accept: joins the organization and returns a 7-day session scoped to it',
      description:
        '403 for an email invitation addressed to someone else, 410 once revoked, expired or used up, 402 (max_seats) when the organization is full, 409 for a current member.',
    },
  },
} satisfies Record<string, Meta>;
