import { personalApps } from '@beckon/contracts/enums';
import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  unique,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, orgRowId, timestamps, ts } from './columns';
import { items } from './items';
import { organizations, users } from './orgs';

export const devices = pgTable(
  'devices',
  {
    id: orgRowId(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /**
     * For browsers: the push subscription JSON string. One row per organization: a person in two
     * organizations has the same browser registered in each.
     */
    deviceToken: text('device_token').notNull(),
    platform: text('platform', { enum: ['mobile', 'webpush'] }).notNull(),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ name: 'devices_pkey', columns: [t.orgId, t.id] }),
    unique('devices_org_device_token_unique').on(t.orgId, t.deviceToken),
    index('devices_user_idx').on(t.userId),
  ],
);

export const pushQueue = pgTable(
  'push_queue',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    deviceId: uuid('device_id').notNull(),
    itemId: uuid('item_id'),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    attempts: integer('attempts').notNull().default(0),
    permanentlyFailed: boolean('permanently_failed').notNull().default(false),
    lastError: text('last_error'),
    nextAttemptAt: ts('next_attempt_at').notNull().defaultNow(),
    deliveredAt: ts('delivered_at'),
    createdAt: createdAt(),
  },
  // Entries are found by id (their deliver_push job); a removed device takes its entries along.
  (t) => [
    primaryKey({ name: 'push_queue_pkey', columns: [t.orgId, t.id] }),
    // The deliver_push job finds its entry by id alone.
    index('push_queue_id_idx').on(t.id),
    foreignKey({
      name: 'push_queue_device_fk',
      columns: [t.orgId, t.deviceId],
      foreignColumns: [devices.orgId, devices.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'push_queue_item_fk',
      columns: [t.orgId, t.itemId],
      foreignColumns: [items.orgId, items.id],
    }).onDelete('cascade'),
    index('push_queue_device_idx').on(t.deviceId),
    // An item's pushes, replaced once it is decided (push-follow-ups.ts).
    index('push_queue_item_idx').on(t.itemId),
  ],
);

const hhmm = (col: string) => sql.raw(`${col} ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'`);

/** A user's push preferences: quiet hours (may wrap past midnight), mutes and a minimum level. */
export const notificationPreferences = pgTable(
  'notification_preferences',
  {
    userId: uuid('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    quietHoursEnabled: boolean('quiet_hours_enabled').notNull().default(false),
    quietHoursStart: text('quiet_hours_start').notNull().default('22:00'),
    quietHoursEnd: text('quiet_hours_end').notNull().default('07:00'),
    quietHoursAllowLevels: text('quiet_hours_allow_levels').notNull().default('error'),
    timezone: text('timezone').notNull().default('UTC'),
    mutedChannels: uuid('muted_channels').array().notNull().default([]),
    // The apps that never message this person directly (enums.ts personalApps).
    mutedApps: text('muted_apps', { enum: personalApps }).array().notNull().default([]),
    minLevel: text('min_level', { enum: ['info', 'warning', 'error', 'success'] })
      .notNull()
      .default('info'),
    ...timestamps(),
  },
  () => [
    check('notification_preferences_start', hhmm('quiet_hours_start')),
    check('notification_preferences_end', hhmm('quiet_hours_end')),
  ],
);
