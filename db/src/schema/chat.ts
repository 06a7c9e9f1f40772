import { index, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from './columns';
import { organizations, users } from './orgs';

/** The chat apps a person links an account of with a one-time code (modules/chat/link-codes.ts). */
export const chatProviders = ['telegram', 'discord', 'teams'] as const;

/**
 * A one-time code a person made in the dashboard to link their account of a chat app: whoever
 * sends it from that app (Telegram's `/start <code>`, Discord's `/beckon-link code`) becomes them
 * there. Only its SHA-256 is kept; it is deleted when used.
 */
export const chatLinkCodes = pgTable(
  'chat_link_codes',
  {
    codeHash: text('code_hash').notNull(),
    provider: text('provider', { enum: chatProviders }).notNull(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: ts('expires_at').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'chat_link_codes_pkey', columns: [t.orgId, t.codeHash] }),
    index('chat_link_codes_expires_idx').on(t.expiresAt),
  ],
);

/**
 * Inbound requests of a chat app already handled (a Telegram update_id, a Discord interaction
 * id): a second delivery of the same one is ignored. Pruned after a day (jobs/prune-expired.ts).
 */
export const chatInboundSeen = pgTable(
  'chat_inbound_seen',
  {
    provider: text('provider', { enum: chatProviders }).notNull(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    externalId: text('external_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.provider, t.orgId, t.externalId] }),
    index('chat_inbound_seen_created_idx').on(t.createdAt),
  ],
);
