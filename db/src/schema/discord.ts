import { foreignKey, pgTable, primaryKey, text, unique, uuid } from 'drizzle-orm/pg-core';
import { createdAt, timestamps } from './columns';
import { channels, items } from './items';
import { organizations, users } from './orgs';

/**
 * An organization's Discord application: at most one; its bot token stored encrypted (AES-256-GCM
 * with a key derived from DISCORD_TOKEN_KEY), its public key verifying the interactions Discord
 * sends to /webhooks/discord/<org_id>.
 */
export const discordConnections = pgTable('discord_connections', {
  orgId: uuid('org_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  applicationId: text('application_id').notNull(),
  applicationName: text('application_name').notNull(),
  /** The application's Ed25519 public key, hex (Discord's `verify_key`). */
  publicKey: text('public_key').notNull(),
  tokenCiphertext: text('token_ciphertext').notNull(),
  installedBy: uuid('installed_by').references(() => users.id, { onDelete: 'set null' }),
  ...timestamps(),
});

/** Items of a Beckon channel are posted to a Discord channel the bot can write to. */
export const discordRoutes = pgTable(
  'discord_routes',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => discordConnections.orgId, { onDelete: 'cascade' }),
    channelId: uuid('channel_id').notNull(),
    discordChannelId: text('discord_channel_id').notNull(),
    discordChannelName: text('discord_channel_name').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    foreignKey({
      name: 'discord_routes_channel_fk',
      columns: [t.orgId, t.channelId],
      foreignColumns: [channels.orgId, channels.id],
    }).onDelete('cascade'),
    primaryKey({ columns: [t.orgId, t.channelId] }),
  ],
);

/** Which Beckon member a Discord user answers as (one each way per organization). */
export const discordUserLinks = pgTable(
  'discord_user_links',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => discordConnections.orgId, { onDelete: 'cascade' }),
    discordUserId: text('discord_user_id').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.discordUserId] }),
    unique('discord_user_links_user_key').on(t.orgId, t.userId),
  ],
);

/** The Discord message of an item in one channel, updated after every decision. */
export const discordMessages = pgTable(
  'discord_messages',
  {
    itemId: uuid('item_id').notNull(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => discordConnections.orgId, { onDelete: 'cascade' }),
    discordChannelId: text('discord_channel_id').notNull(),
    messageId: text('message_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'discord_messages_pkey', columns: [t.orgId, t.itemId, t.discordChannelId] }),
    foreignKey({
      name: 'discord_messages_item_fk',
      columns: [t.orgId, t.itemId],
      foreignColumns: [items.orgId, items.id],
    }).onDelete('cascade'),
  ],
);
