import { foreignKey, index, pgTable, primaryKey, text, unique, uuid } from 'drizzle-orm/pg-core';
import { createdAt, timestamps } from './columns';
import { channels, items } from './items';
import { organizations, users } from './orgs';

/** An organization's Slack workspace: at most one; its bot token stored encrypted (AES-256-GCM). */
export const slackConnections = pgTable(
  'slack_connections',
  {
    orgId: uuid('org_id')
      .primaryKey()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    teamId: text('team_id').notNull(),
    teamName: text('team_name').notNull(),
    botUserId: text('bot_user_id'),
    /** base64 of iv (12 bytes) | tag (16 bytes) | ciphertext: never readable without SLACK_TOKEN_KEY. */
    tokenCiphertext: text('token_ciphertext').notNull(),
    installedBy: uuid('installed_by').references(() => users.id, { onDelete: 'set null' }),
    ...timestamps(),
  },
  (t) => [index('slack_connections_team_idx').on(t.teamId)],
);

/** Items of a Beckon channel are posted to a Slack channel of the organization's workspace. */
export const slackRoutes = pgTable(
  'slack_routes',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => slackConnections.orgId, { onDelete: 'cascade' }),
    channelId: uuid('channel_id').notNull(),
    slackChannelId: text('slack_channel_id').notNull(),
    slackChannelName: text('slack_channel_name').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    foreignKey({
      name: 'slack_routes_channel_fk',
      columns: [t.orgId, t.channelId],
      foreignColumns: [channels.orgId, channels.id],
    }).onDelete('cascade'),
    primaryKey({ columns: [t.orgId, t.channelId] }),
  ],
);

/** Which Beckon member a Slack user of the workspace answers as (one each way per organization). */
export const slackUserLinks = pgTable(
  'slack_user_links',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => slackConnections.orgId, { onDelete: 'cascade' }),
    slackUserId: text('slack_user_id').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.slackUserId] }),
    unique('slack_user_links_user_key').on(t.orgId, t.userId),
  ],
);

/** The Slack message of an item in one Slack channel, updated after every decision. */
export const slackMessages = pgTable(
  'slack_messages',
  {
    itemId: uuid('item_id').notNull(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => slackConnections.orgId, { onDelete: 'cascade' }),
    slackChannelId: text('slack_channel_id').notNull(),
    // Where the message was asked to go: the channel, or a person's user id for their DM.
    postedTo: text('posted_to'),
    ts: text('ts').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'slack_messages_pkey', columns: [t.orgId, t.itemId, t.slackChannelId] }),
    foreignKey({
      name: 'slack_messages_item_fk',
      columns: [t.orgId, t.itemId],
      foreignColumns: [items.orgId, items.id],
    }).onDelete('cascade'),
  ],
);
