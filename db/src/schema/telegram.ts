import { foreignKey, pgTable, primaryKey, text, unique, uuid } from 'drizzle-orm/pg-core';
import { createdAt, timestamps } from './columns';
import { channels, items } from './items';
import { organizations, users } from './orgs';

/**
 * An organization's Telegram bot: at most one; its token stored encrypted (AES-256-GCM with a key
 * derived from TELEGRAM_TOKEN_KEY). Telegram calls /webhooks/telegram/<org_id> with its updates.
 */
export const telegramConnections = pgTable('telegram_connections', {
  orgId: uuid('org_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  botId: text('bot_id').notNull(),
  botUsername: text('bot_username').notNull(),
  /** base64 of iv (12 bytes) | tag (16 bytes) | ciphertext. */
  tokenCiphertext: text('token_ciphertext').notNull(),
  installedBy: uuid('installed_by').references(() => users.id, { onDelete: 'set null' }),
  ...timestamps(),
});

/** Items of a Beckon channel are posted to a Telegram chat (a group, a channel, a person). */
export const telegramRoutes = pgTable(
  'telegram_routes',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => telegramConnections.orgId, { onDelete: 'cascade' }),
    channelId: uuid('channel_id').notNull(),
    chatId: text('chat_id').notNull(),
    chatTitle: text('chat_title').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    foreignKey({
      name: 'telegram_routes_channel_fk',
      columns: [t.orgId, t.channelId],
      foreignColumns: [channels.orgId, channels.id],
    }).onDelete('cascade'),
    primaryKey({ columns: [t.orgId, t.channelId] }),
  ],
);

/** Which Beckon member a Telegram user answers as (one each way per organization). */
export const telegramUserLinks = pgTable(
  'telegram_user_links',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => telegramConnections.orgId, { onDelete: 'cascade' }),
    telegramUserId: text('telegram_user_id').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.telegramUserId] }),
    unique('telegram_user_links_user_key').on(t.orgId, t.userId),
  ],
);

/** The Telegram message of an item in one chat, edited after every decision. */
export const telegramMessages = pgTable(
  'telegram_messages',
  {
    itemId: uuid('item_id').notNull(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => telegramConnections.orgId, { onDelete: 'cascade' }),
    chatId: text('chat_id').notNull(),
    messageId: text('message_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'telegram_messages_pkey', columns: [t.orgId, t.itemId, t.chatId] }),
    foreignKey({
      name: 'telegram_messages_item_fk',
      columns: [t.orgId, t.itemId],
      foreignColumns: [items.orgId, items.id],
    }).onDelete('cascade'),
  ],
);
