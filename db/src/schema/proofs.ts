import { actorTypes } from '@beckon/contracts/enums';
import { sql } from 'drizzle-orm';
import { bigint, index, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, orgRowId, ts } from './columns';
import { organizations } from './orgs';

export const auditEntries = pgTable(
  'audit_entries',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /**
     * The item it concerns, if any. Not a foreign key: the entry outlives its item (an item's
     * retention period may be shorter than the audit's), and removing it with the item would cut
     * the chain in the middle.
     */
    itemId: uuid('item_id'),
    action: text('action').notNull(),
    actorType: text('actor_type', { enum: actorTypes }).notNull(),
    actorId: uuid('actor_id'),
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    /**
     * The entry's place in its organization's chain (contracts/src/proofs/audit-chain.ts):
     * 1, 2, 3... per organization, the previous entry's hash, and this entry's. Given by the
     * sequencer once the entry has committed (server/src/realtime/sequencer.ts); null until then,
     * and for entries written before the chain existed (those have no content_hash).
     */
    seq: bigint('seq', { mode: 'number' }),
    prevHash: text('prev_hash'),
    hash: text('hash'),
    /** The content digest (contentDigest), taken when the entry is written; the link covers it. */
    contentHash: text('content_hash'),
  },
  (t) => [
    primaryKey({ name: 'audit_entries_pkey', columns: [t.orgId, t.id] }),
    uniqueIndex('audit_entries_org_seq_key').on(t.orgId, t.seq),
    index('audit_entries_item_idx').on(t.itemId, t.id),
    // BRIN: rows arrive in time order, and only pruning by age reads them so; a B-tree cost
    // every insert (and the sequencer's update) an entry.
    index('audit_entries_created_idx').using('brin', t.createdAt),
    index('audit_entries_unlinked_idx')
      .on(t.orgId)
      .where(sql`${t.seq} is null and ${t.contentHash} is not null`),
  ],
);

/**
 * The head of each organization's audit chain: the last entry's seq and hash, moved by the
 * sequencer as it links committed entries (its row lock orders the sequencer's runs), and the anchor the
 * chain starts after (the last entry the retention period removed; seq 0 and 64 zeros before).
 */
export const auditHeads = pgTable('audit_heads', {
  orgId: uuid('org_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  seq: bigint('seq', { mode: 'number' }).notNull(),
  hash: text('hash').notNull(),
  /** The hash before the last write: what that entry's prev_hash is read from. */
  prevHash: text('prev_hash').notNull(),
  anchorSeq: bigint('anchor_seq', { mode: 'number' }).notNull().default(0),
  anchorHash: text('anchor_hash').notNull().default(sql`repeat('0', 64)`),
});

/**
 * The keys an organization's receipts are signed with (Ed25519). One is active (retired_at
 * null); rotation retires it and the next decision creates another. Retired keys stay published
 * (/.well-known/jwks.json) so that old receipts still verify. The private key is stored
 * encrypted with a key derived from OAUTH_SIGNING_KEY.
 */
export const receiptKeys = pgTable(
  'receipt_keys',
  {
    kid: text('kid').notNull(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    publicJwk: jsonb('public_jwk').$type<Record<string, string>>().notNull(),
    privateKey: text('private_key').notNull(),
    createdAt: createdAt(),
    retiredAt: ts('retired_at'),
  },
  (t) => [
    primaryKey({ name: 'receipt_keys_pkey', columns: [t.orgId, t.kid] }),
    uniqueIndex('receipt_keys_active_key').on(t.orgId).where(sql`${t.retiredAt} is null`),
  ],
);
