import { sql } from 'drizzle-orm';
import { check, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from './columns';
import { organizations } from './orgs';

/**
 * How long an organization keeps its data, in days; null keeps it forever (audit entries: for
 * the plan's retention, which also caps `audit_days`). Applied by the apply_retention job.
 */
export const retentionPolicies = pgTable(
  'retention_policies',
  {
    orgId: uuid('org_id')
      .primaryKey()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** Items created longer ago that are no longer open. */
    itemsDays: integer('items_days'),
    /** Archived items, counted from their archiving. */
    archivedItemsDays: integer('archived_items_days'),
    commentsDays: integer('comments_days'),
    attachmentsDays: integer('attachments_days'),
    auditDays: integer('audit_days'),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    check(
      'retention_policies_positive',
      sql`coalesce(${t.itemsDays}, 1) > 0 and coalesce(${t.archivedItemsDays}, 1) > 0
          and coalesce(${t.commentsDays}, 1) > 0 and coalesce(${t.attachmentsDays}, 1) > 0
          and coalesce(${t.auditDays}, 1) > 0`,
    ),
  ],
);

/**
 * Stored files whose attachment rows are gone (a trigger on attachments fills it, whatever
 * removed them: the API, an item's retention, an organization's deletion), removed from storage
 * by the retention jobs. A file is never left behind by a crash between the two.
 */
export const blobDeletions = pgTable('blob_deletions', {
  storageKey: text('storage_key').primaryKey(),
  createdAt: createdAt(),
});
