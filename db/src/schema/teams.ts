import { foreignKey, pgTable, primaryKey, text, unique, uuid } from 'drizzle-orm/pg-core';
import { createdAt, timestamps, ts } from './columns';
import { channels, items } from './items';
import { organizations, users } from './orgs';

/**
 * An organization's Microsoft Teams bot (an Azure Bot registration): at most one; its client
 * secret stored encrypted (AES-256-GCM with a key derived from TEAMS_TOKEN_KEY). Bot Framework
 * posts the bot's activities to /webhooks/teams/<org_id>, each with a JWT whose audience is the
 * app id.
 */
export const teamsConnections = pgTable('teams_connections', {
  orgId: uuid('org_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  /** The bot's Microsoft App ID (a GUID). */
  appId: text('app_id').notNull(),
  /** The Entra tenant of a single-tenant bot; null for a multi-tenant one (botframework.com). */
  tenantId: text('tenant_id'),
  /** base64 of iv (12 bytes) | tag (16 bytes) | ciphertext. */
  secretCiphertext: text('secret_ciphertext').notNull(),
  installedBy: uuid('installed_by').references(() => users.id, { onDelete: 'set null' }),
  ...timestamps(),
});

/**
 * A Teams conversation the bot was added to or spoken to in (a channel, a group chat, a person's
 * chat with the bot), with the service URL Bot Framework named for it: replies and cards go there.
 */
export const teamsConversations = pgTable(
  'teams_conversations',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => teamsConnections.orgId, { onDelete: 'cascade' }),
    conversationId: text('conversation_id').notNull(),
    serviceUrl: text('service_url').notNull(),
    /** `channel`, `groupChat` or `personal` (Teams' conversationType). */
    kind: text('kind').notNull(),
    name: text('name').notNull(),
    /** The Teams user of a personal conversation (their chat with the bot); null otherwise. */
    personalUserId: text('personal_user_id'),
    lastSeenAt: ts('last_seen_at').notNull().defaultNow(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.conversationId] })],
);

/** Items of a Beckon channel are posted to a Teams conversation the bot is in. */
export const teamsRoutes = pgTable(
  'teams_routes',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => teamsConnections.orgId, { onDelete: 'cascade' }),
    channelId: uuid('channel_id').notNull(),
    conversationId: text('conversation_id').notNull(),
    conversationName: text('conversation_name').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    foreignKey({
      name: 'teams_routes_channel_fk',
      columns: [t.orgId, t.channelId],
      foreignColumns: [channels.orgId, channels.id],
    }).onDelete('cascade'),
    primaryKey({ columns: [t.orgId, t.channelId] }),
  ],
);

/** Which Beckon member a Teams user (the bot's id of them, `29:…`) answers as. */
export const teamsUserLinks = pgTable(
  'teams_user_links',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => teamsConnections.orgId, { onDelete: 'cascade' }),
    teamsUserId: text('teams_user_id').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.teamsUserId] }),
    unique('teams_user_links_user_key').on(t.orgId, t.userId),
  ],
);

/** The Teams card (an activity) of an item in one conversation, updated after every change. */
export const teamsMessages = pgTable(
  'teams_messages',
  {
    itemId: uuid('item_id').notNull(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => teamsConnections.orgId, { onDelete: 'cascade' }),
    conversationId: text('conversation_id').notNull(),
    activityId: text('activity_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'teams_messages_pkey', columns: [t.orgId, t.itemId, t.conversationId] }),
    foreignKey({
      name: 'teams_messages_item_fk',
      columns: [t.orgId, t.itemId],
      foreignColumns: [items.orgId, items.id],
    }).onDelete('cascade'),
  ],
);
