import { foreignKey, index, pgTable, primaryKey, text, unique, uuid } from 'drizzle-orm/pg-core';
import { createdAt, orgRowId, ts } from './columns';
import { agents } from './credentials';
import { items } from './items';
import { organizations, users } from './orgs';

/**
 * A person's "allow for N minutes" answer to a gate request: until `expires_at`, calls of the same
 * agent (or, for a person's credential, the same person) matching `rule` pass without asking.
 * One per answered item.
 */
export const gateGrants = pgTable(
  'gate_grants',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** The agent whose API key asked; null for a person's credential (then `user_id` scopes it). */
    agentId: uuid('agent_id'),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The policy rule the call matched, as the agent's policy spells it (`Bash(git push *)`). */
    rule: text('rule').notNull(),
    itemId: uuid('item_id').notNull(),
    /** The person who answered. */
    grantedBy: uuid('granted_by')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    note: text('note'),
    createdAt: createdAt(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'gate_grants_pkey', columns: [t.orgId, t.id] }),
    foreignKey({
      name: 'gate_grants_agent_fk',
      columns: [t.orgId, t.agentId],
      foreignColumns: [agents.orgId, agents.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'gate_grants_item_fk',
      columns: [t.orgId, t.itemId],
      foreignColumns: [items.orgId, items.id],
    }).onDelete('cascade'),
    unique('gate_grants_item_key').on(t.orgId, t.itemId),
    index('gate_grants_lookup_idx').on(t.orgId, t.agentId, t.rule, t.expiresAt),
    index('gate_grants_expires_idx').on(t.expiresAt),
  ],
);
