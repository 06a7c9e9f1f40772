import { sql } from 'drizzle-orm';
import { bigint, index, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, orgRowId, xid8 } from './columns';
import { organizations } from './orgs';

/**
 * Ordered log of item events for the real-time streams: a resumable stream reads everything
 * after a `Last-Event-ID` from here. An event is written with its change; its number in the
 * organization's order is given once it has committed, by the sequencer
 * (server/src/realtime/sequencer.ts), so the numbers of an organization follow commit order.
 */
export const events = pgTable(
  'events',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** 1, 2, 3... per organization in commit order; null until the sequencer numbers it. */
    seq: bigint('seq', { mode: 'number' }),
    type: text('type').notNull(),
    itemId: uuid('item_id'),
    agentId: uuid('agent_id'),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    /**
     * The writing transaction: events committed together wait for one numbering, which orders
     * them by it (a transaction that began after another committed has a later id).
     */
    txId: xid8('tx_id').default(sql`pg_current_xact_id()`),
  },
  (t) => [
    primaryKey({ name: 'events_pkey', columns: [t.orgId, t.id] }),
    uniqueIndex('events_org_seq_key').on(t.orgId, t.seq),
    index('events_unsequenced_idx').on(t.orgId).where(sql`${t.seq} is null`),
    // BRIN: rows arrive in time order, and only pruning by age reads them so; a B-tree cost
    // every insert (and the sequencer's update) an entry.
    index('events_created_idx').using('brin', t.createdAt),
  ],
);

/** The last event number given in each organization (the sequencer's row lock orders its runs). */
export const eventCounters = pgTable('event_counters', {
  orgId: uuid('org_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  seq: bigint('seq', { mode: 'number' }).notNull(),
});
