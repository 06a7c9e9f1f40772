import { z } from 'zod';
import { ZOrganization, ZSlug } from '../accounts/account.contract';
import type { Meta } from '../meta';

export const ZMember = z
  .object({
    user_id: z.uuid(),
    email: z.string(),
    name: z.string().nullable(),
    role: z.object({ id: z.uuid(), name: z.string(), is_system: z.boolean() }),
    joined_at: z.string(),
  })
  .meta({ id: 'Member' });
export type MemberView = z.infer<typeof ZMember>;

export const ZChangeRoleInput = z.strictObject({ user_id: z.uuid(), role_id: z.uuid() });
export const ZMemberRef = z.strictObject({ user_id: z.uuid() });

export const ZRemovedMember = z
  .object({ user_id: z.uuid(), removed_at: z.string() })
  .meta({ id: 'RemovedMember' });

export const ZAdminOrg = ZOrganization.omit({ role: true })
  .extend({
    callback_secret: z
      .string()
      .describe("Signs callbacks to items' callback_url (X-Service-Signature: HMAC-SHA256 of the body)"),
  })
  .meta({ id: 'AdminOrganization' });
export type AdminOrgView = z.infer<typeof ZAdminOrg>;

export const ZUpdateOrgInput = z
  .strictObject({
    name: z.string().trim().min(1).max(100).optional(),
    slug: ZSlug.optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .refine((input) => Object.values(input).some((v) => v !== undefined), {
    error: 'give at least one of name, slug, metadata',
  });
export type UpdateOrgInput = z.infer<typeof ZUpdateOrgInput>;

const ZLimitUsage = z.object({
  limit: z.number().int().nullable().describe('null: unlimited'),
  current: z.number().int().nullable().describe('null: not counted (unlimited monthly quota)'),
});

export const ZUsage = z
  .object({
    plan: z.object({ code: z.string(), name: z.string(), audit_retention_days: z.number().int() }),
    subscription: z.object({
      status: z.string(),
      current_period_end: z.string().nullable(),
      cancel_at_period_end: z.boolean(),
    }),
    month: z.string().describe('The calendar month (UTC) monthly_notifications counts, YYYY-MM'),
    limits: z.object({
      max_seats: ZLimitUsage,
      max_teams: ZLimitUsage,
      monthly_notifications: ZLimitUsage,
      webhooks: ZLimitUsage,
      agents: ZLimitUsage,
    }),
  })
  .meta({ id: 'Usage' });
export type UsageView = z.infer<typeof ZUsage>;

const tags = ['admin'];
const protect = true;
export const memberMeta = {
  list: {
    openapi: { method: 'GET', path: '/admin/users', protect, tags, summary: 'Members (users.invite)' },
  },
  changeRole: {
    openapi: {
      method: 'POST',
      path: '/admin/users/{user_id}/role',
      protect,
      tags,
      summary: "Change a member's role (users.change_role)",
      description:
        'The caller must hold every permission of both the current and the new role (403 naming one it lacks). Demoting the only Owner is a 409. Takes effect on the next request of every credential of the member.',
    },
  },
  deactivate: {
    openapi: {
      method: 'POST',
      path: '/admin/users/{user_id}/deactivate',
      protect,
      tags,
      summary: 'Remove a member (users.remove)',
      description:
        "Ends the membership, the member's sessions in this organization and API keys, and team memberships. The caller must hold every permission of the member's role; removing the only Owner is a 409.",
    },
  },
  org: {
    openapi: {
      method: 'GET',
      path: '/admin/org',
      protect,
      tags,
      summary: 'Organization details (org.manage)',
    },
  },
  updateOrg: {
    openapi: {
      method: 'PATCH',
      path: '/admin/org',
      protect,
      tags,
      summary: 'Update name, slug, metadata (org.manage)',
      description: 'A slug taken by another organization is a 409; metadata replaces the previous one.',
    },
  },
  usage: {
    openapi: {
      method: 'GET',
      path: '/admin/usage',
      protect,
      tags,
      summary: 'Current plan and usage against its limits (org.manage)',
    },
  },
} satisfies Record<string, Meta>;
