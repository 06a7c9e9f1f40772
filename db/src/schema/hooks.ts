import { deliveryKinds } from '@beckon/contracts/enums';
import { sql } from 'drizzle-orm';
import {
  boolean,
  foreignKey,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  unique,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, orgRowId, timestamps } from './columns';
import { items } from './items';
import { organizations, users } from './orgs';

export const webhooks = pgTable(
  'webhooks',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    url: text('url').notNull(),
    events: text('events').array().notNull(),
    /** HMAC key: kept readable because every delivery is signed with it. */
    secret: text('secret').notNull(),
    active: boolean('active').notNull().default(true),
    disabledReason: text('disabled_reason'),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ name: 'webhooks_pkey', columns: [t.orgId, t.id] }),
    // The deliver_webhook job finds its webhook by id alone.
    index('webhooks_id_idx').on(t.id),
    index('webhooks_org_idx').on(t.orgId, t.createdAt),
  ],
);

export const inboundWebhooks = pgTable(
  'inbound_webhooks',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'inbound_webhooks_pkey', columns: [t.orgId, t.id] }),
    unique('inbound_webhooks_org_token_hash_unique').on(t.orgId, t.tokenHash),
    index('inbound_webhooks_org_idx').on(t.orgId, t.createdAt),
  ],
);

/** What a delivery attempt was: an HTTP callback or webhook, a mail, or a Slack API call. */
export { deliveryKinds };

/** One row per outbound attempt: a callback or webhook (HTTP), a mail, or a Slack API call. */
export const deliveryAttempts = pgTable(
  'delivery_attempts',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** Stable across retries of the same delivery (X-Service-Delivery). */
    deliveryId: uuid('delivery_id').notNull(),
    kind: text('kind', { enum: deliveryKinds }).notNull(),
    /** Null once the webhook is deleted: its attempts stay visible. */
    webhookId: uuid('webhook_id'),
    itemId: uuid('item_id'),
    event: text('event').notNull(),
    url: text('url').notNull(),
    attempt: integer('attempt').notNull(),
    statusCode: integer('status_code'),
    error: text('error'),
    durationMs: integer('duration_ms'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'delivery_attempts_pkey', columns: [t.orgId, t.id] }),
    // `on delete set null` of the id column alone, `org_id` kept (written out in the migration: drizzle
    // has no column list for it).
    foreignKey({
      name: 'delivery_attempts_webhook_fk',
      columns: [t.orgId, t.webhookId],
      foreignColumns: [webhooks.orgId, webhooks.id],
    }).onDelete('set null'),
    foreignKey({
      name: 'delivery_attempts_item_fk',
      columns: [t.orgId, t.itemId],
      foreignColumns: [items.orgId, items.id],
    }).onDelete('cascade'),
    index('delivery_attempts_delivery_idx').on(t.deliveryId),
    index('delivery_attempts_webhook_idx').on(t.webhookId, t.id).where(sql`${t.webhookId} is not null`),
  ],
);
