import { sql } from 'drizzle-orm';
import { bigserial, index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, pgSnapshot, xid8 } from './columns';
import { organizations } from './orgs';

/**
 * Ordered log of item events for the real-time streams: a resumable stream reads
 * everything after a `Last-Event-ID` from here.
 */
export const events = pgTable(
  'events',
  {
    seq: bigserial('seq', { mode: 'number' }).primaryKey(),
    id: uuid('id').notNull().unique(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    itemId: uuid('item_id'),
    agentId: uuid('agent_id'),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    /**
     * The writing transaction and what was in progress when it wrote the event: a stream resumed
     * after this event also gets the events numbered before it that committed after it
     * (server/src/realtime/event-hub.ts). Null on events written before these columns.
     */
    txId: xid8('tx_id').default(sql`pg_current_xact_id()`),
    txSnapshot: pgSnapshot('tx_snapshot').default(sql`pg_current_snapshot()`),
  },
  (t) => [index('events_org_seq_idx').on(t.orgId, t.seq), index('events_created_idx').on(t.createdAt)],
);
