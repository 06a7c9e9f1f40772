import { foreignKey, index, integer, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, orgRowId, ts } from './columns';
import { agents } from './credentials';
import { items } from './items';
import { organizations, users } from './orgs';

/**
 * An MCP task (protocol 2025-11-25): a `tools/call` answered at once, its outcome fetched later.
 * It belongs to the credential that made it (the agent of an API key, else the person) and
 * follows one item: its status is read from the item's, never stored twice.
 */
export const mcpTasks = pgTable(
  'mcp_tasks',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** The agent whose API key made it; null for a person's credential (then `user_id` scopes it). */
    agentId: uuid('agent_id'),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    itemId: uuid('item_id').notNull(),
    tool: text('tool').notNull(),
    ttlMs: integer('ttl_ms').notNull(),
    createdAt: createdAt(),
    /** created_at + ttl: past it the task is gone ("not found"), and its row is purged. */
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'mcp_tasks_pkey', columns: [t.orgId, t.id] }),
    foreignKey({
      name: 'mcp_tasks_agent_fk',
      columns: [t.orgId, t.agentId],
      foreignColumns: [agents.orgId, agents.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'mcp_tasks_item_fk',
      columns: [t.orgId, t.itemId],
      foreignColumns: [items.orgId, items.id],
    }).onDelete('cascade'),
    index('mcp_tasks_org_agent_idx').on(t.orgId, t.agentId, t.id),
    index('mcp_tasks_expires_idx').on(t.expiresAt),
    // Deleting items (cascading here) finds their tasks.
    index('mcp_tasks_item_idx').on(t.itemId),
  ],
);
