import { emailDigestPeriods } from '@beckon/contracts/enums';
import { sql } from 'drizzle-orm';
import { boolean, check, foreignKey, index, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, orgRowId, timestamps, ts } from './columns';
import { itemLevels, items } from './items';
import { organizations, users } from './orgs';

export { emailDigestPeriods };

/**
 * A person's email channel in one organization: mail on or off (off until they turn it on), and
 * whether items below `digest_below` wait for one digest mail per period instead. Quiet hours,
 * the minimum level and mutes are their notification preferences (push's), applied the same way.
 */
export const emailSettings = pgTable(
  'email_settings',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    enabled: boolean('enabled').notNull().default(false),
    digest: text('digest', { enum: emailDigestPeriods }).notNull().default('off'),
    digestBelow: text('digest_below', { enum: itemLevels }).notNull().default('warning'),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.orgId] }),
    index('email_settings_org_idx').on(t.orgId).where(sql`${t.enabled}`),
    check('email_settings_digest', sql`${t.digest} in ('off', 'hourly', 'daily')`),
  ],
);

/** Items waiting for a person's next digest mail (sent and removed by `send_email_digest`). */
export const emailDigestEntries = pgTable(
  'email_digest_entries',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    itemId: uuid('item_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'email_digest_entries_pkey', columns: [t.orgId, t.id] }),
    foreignKey({
      name: 'email_digest_entries_item_fk',
      columns: [t.orgId, t.itemId],
      foreignColumns: [items.orgId, items.id],
    }).onDelete('cascade'),
    index('email_digest_entries_person_idx').on(t.orgId, t.userId, t.id),
  ],
);

/** The mails whose answer links were used: a link works once (its mail's nonce is claimed here). */
export const emailLinkUses = pgTable('email_link_uses', {
  nonce: uuid('nonce').primaryKey(),
  usedAt: ts('used_at').notNull().defaultNow(),
  /** When the link would have expired anyway: the row can go after that. */
  expiresAt: ts('expires_at').notNull(),
});
