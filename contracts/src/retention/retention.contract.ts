import { z } from 'zod';

/** A retention period in days: at least one, at most a century; null keeps data forever. */
const ZDays = z.number().int().min(1).max(36_500).nullable();

export const ZRetentionPolicy = z
  .object({
    items_days: ZDays.describe('Items no longer open are removed this many days after their creation'),
    archived_items_days: ZDays.describe('Archived items are removed this many days after their archiving'),
    comments_days: ZDays.describe('Comments are removed this many days after they were written'),
    attachments_days: ZDays.describe('Attachments (and their files) are removed this many days after upload'),
    audit_days: ZDays.describe('Audit entries are kept this many days, at most the plan’s audit retention'),
    plan_audit_days: z
      .number()
      .int()
      .describe('The plan’s audit retention: audit entries are never kept longer, whatever audit_days says'),
    updated_at: z.string().nullable().describe('Null while the organization keeps the defaults'),
  })
  .meta({ id: 'RetentionPolicy' });
export type RetentionPolicyView = z.infer<typeof ZRetentionPolicy>;

/** Every period is set at once: a field left out is null (kept forever). */
export const ZPutRetentionInput = z.strictObject({
  items_days: ZDays.optional(),
  archived_items_days: ZDays.optional(),
  comments_days: ZDays.optional(),
  attachments_days: ZDays.optional(),
  audit_days: ZDays.optional(),
});
export type PutRetentionInput = z.infer<typeof ZPutRetentionInput>;

export const RETENTION_FIELDS = [
  'items_days',
  'archived_items_days',
  'comments_days',
  'attachments_days',
  'audit_days',
] as const;

export const ZDeleteOrgInput = z.strictObject({
  confirm: z.string().max(200).describe('The organization’s slug, typed again'),
});

export const ZOrgDeletion = z
  .object({
    org_id: z.uuid(),
    deletion_requested_at: z.string().describe('From now on no credential reaches the organization'),
  })
  .meta({ id: 'OrganizationDeletion' });

const tags = ['retention'];
const protect = true;
export const retentionMeta = {
  get: {
    openapi: {
      method: 'GET',
      path: '/admin/retention',
      protect,
      tags,
      summary: 'How long the organization keeps its data (org.manage)',
    },
  },
  put: {
    openapi: {
      method: 'PUT',
      path: '/admin/retention',
      protect,
      tags,
      summary: 'Set every retention period at once (org.manage)',
      description:
        'A period left out or null keeps that data forever. `audit_days` above the plan’s audit retention is a 400. The apply_retention job removes what is past its period, in small batches, hourly.',
    },
  },
  deleteOrg: {
    status: 202,
    openapi: {
      method: 'POST',
      path: '/admin/org/delete',
      protect,
      tags,
      summary: 'Delete the organization and all its data (org.delete: Owners)',
      description:
        'The body repeats the organization’s slug (422 otherwise). Every credential of the organization stops working at once; its data is removed in batches by the delete_organization job. A personal workspace is deleted with its person’s erasure only (409).',
    },
  },
} as const;
