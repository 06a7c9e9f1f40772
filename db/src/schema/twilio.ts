import { phoneChannels } from '@beckon/contracts/enums';
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
import { createdAt, timestamps, ts } from './columns';
import { items } from './items';
import { organizations, users } from './orgs';

/**
 * An organization's Twilio account (SMS and WhatsApp): at most one; its auth token stored
 * encrypted (AES-256-GCM), and the numbers messages are sent from.
 */
export const twilioConnections = pgTable('twilio_connections', {
  orgId: uuid('org_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  accountSid: text('account_sid').notNull(),
  /** base64 of iv (12 bytes) | tag (16 bytes) | ciphertext: never readable without TWILIO_TOKEN_KEY. */
  authTokenCiphertext: text('auth_token_ciphertext').notNull(),
  smsFrom: text('sms_from'),
  whatsappFrom: text('whatsapp_from'),
  connectedBy: uuid('connected_by').references(() => users.id, { onDelete: 'set null' }),
  ...timestamps(),
});

/**
 * A member's phone number in an organization (one each way), used only once verified by a code
 * sent to it; `opted_out_at` is set by a STOP reply and cleared by START.
 */
export const phoneNumbers = pgTable(
  'phone_numbers',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => twilioConnections.orgId, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    phone: text('phone').notNull(),
    channel: text('channel', { enum: phoneChannels }).notNull(),
    verifiedAt: ts('verified_at'),
    /** HMAC-SHA256 of the pending verification code (null once verified). */
    codeHash: text('code_hash'),
    codeExpiresAt: ts('code_expires_at'),
    codeAttempts: integer('code_attempts').notNull().default(0),
    optedOutAt: ts('opted_out_at'),
    /** The reference the next item sent to this phone gets (`#<ref>` in the text). */
    nextRef: integer('next_ref').notNull().default(1),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.userId] }),
    unique('phone_numbers_phone_key').on(t.orgId, t.phone),
  ],
);

/**
 * A text Beckon sent about an item to a person's phone: replies name it by `ref` (or answer the
 * latest open one), and `closed_notice` records that the person was told of the decision.
 */
export const twilioMessages = pgTable(
  'twilio_messages',
  {
    itemId: uuid('item_id').notNull(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => twilioConnections.orgId, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    phone: text('phone').notNull(),
    channel: text('channel', { enum: phoneChannels }).notNull(),
    ref: integer('ref').notNull(),
    sid: text('sid'),
    closedNotice: boolean('closed_notice').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'twilio_messages_pkey', columns: [t.orgId, t.itemId, t.userId] }),
    foreignKey({
      name: 'twilio_messages_item_fk',
      columns: [t.orgId, t.itemId],
      foreignColumns: [items.orgId, items.id],
    }).onDelete('cascade'),
    index('twilio_messages_phone_idx').on(t.orgId, t.phone, t.createdAt),
  ],
);

/** Inbound messages already handled, by Twilio's MessageSid: a replayed request changes nothing. */
export const twilioInbound = pgTable(
  'twilio_inbound',
  {
    messageSid: text('message_sid').notNull(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => twilioConnections.orgId, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'twilio_inbound_pkey', columns: [t.orgId, t.messageSid] }),
    index('twilio_inbound_created_idx').on(t.createdAt),
  ],
);
