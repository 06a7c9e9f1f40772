import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  date,
  integer,
  pgTable,
  primaryKey,
  smallint,
  text,
  uuid,
} from 'drizzle-orm/pg-core';
import { id, orgRowId, timestamps, ts } from './columns';
import { organizations } from './orgs';

/** Plan limits: null means unlimited (never counted, never refused). */
export const plans = pgTable('plans', {
  id: id(),
  code: text('code').notNull().unique(),
  name: text('name').notNull(),
  maxSeats: integer('max_seats'),
  maxTeams: integer('max_teams'),
  monthlyNotifications: integer('monthly_notifications'),
  webhooks: integer('webhooks'),
  agents: integer('agents'),
  /** Connected Slack workspaces (0: not on this plan). */
  slackWorkspaces: integer('slack_workspaces'),
  /** Connected Telegram bots (0: not on this plan). */
  telegramBots: integer('telegram_bots'),
  /** Connected Discord applications (0: not on this plan). */
  discordApplications: integer('discord_applications'),
  /** Connected Microsoft Teams bots (0: not on this plan). */
  teamsBots: integer('teams_bots'),
  /** Connected Twilio accounts, for SMS and WhatsApp (0: not on this plan). */
  twilioAccounts: integer('twilio_accounts'),
  /** Bytes of attachment files an organization may keep in all (the sum of their sizes). */
  attachmentStorageBytes: bigint('attachment_storage_bytes', { mode: 'number' }),
  auditRetentionDays: integer('audit_retention_days').notNull(),
  paymentPriceId: text('payment_price_id'),
});

export const subscriptionStatuses = ['active', 'trialing', 'past_due', 'canceled', 'incomplete'] as const;

/** Exactly one per organization: unique org_id, created by a trigger with the organization. */
export const subscriptions = pgTable(
  'subscriptions',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .unique()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    planId: uuid('plan_id')
      .notNull()
      .references(() => plans.id),
    status: text('status', { enum: subscriptionStatuses }).notNull().default('active'),
    paymentCustomerId: text('payment_customer_id'),
    paymentSubscriptionId: text('payment_subscription_id'),
    currentPeriodEnd: ts('current_period_end'),
    cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull().default(false),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ name: 'subscriptions_pkey', columns: [t.orgId, t.id] }),
    check(
      'subscriptions_status',
      sql`${t.status} in ('active', 'trialing', 'past_due', 'canceled', 'incomplete')`,
    ),
  ],
);

/**
 * Notifications created per (organization, calendar month in UTC), counted in shards so that
 * concurrent creations of one organization do not wait for one another: a creation counts in its
 * connection's shard, within the allowance the shard took from the month's allotment
 * (migration 0044). `monthly_usage` is the view of their sum.
 */
export const monthlyUsageShards = pgTable(
  'monthly_usage_shards',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    month: date('month').notNull(),
    shard: smallint('shard').notNull(),
    used: integer('used').notNull().default(0),
    allowance: integer('allowance').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.month, t.shard] }),
    check('monthly_usage_shards_within_allowance', sql`${t.used} <= ${t.allowance}`),
  ],
);

/** How much of the month's quota the shards have taken as allowance (never more than the quota). */
export const monthlyAllotments = pgTable(
  'monthly_allotments',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    month: date('month').notNull(),
    allotted: integer('allotted').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.month] })],
);
