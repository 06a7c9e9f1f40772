import type { ItemView } from '@beckon/contracts/items/item.contract';
import type { ItemResponse, OnTimeout } from '@beckon/contracts/items/policies.contract';
import type { BindableAction } from '@beckon/contracts/proofs/action';
import { schema } from '@beckon/db';
import { getTableColumns } from 'drizzle-orm';
import { nextStep } from '../../assignment/escalation-due';
import { approvalsView, type StoredApprovals } from '../state/policies';

/** `fooBar` → `foo_bar`: the column names postgres.js hands back for drizzle's property names. */
type Snake<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${Snake<Tail>}`
  : S;
type SnakeKeys<T> = { [K in keyof T as Snake<K & string>]: T[K] };
type Columns = Omit<
  typeof schema.items.$inferSelect,
  'search' | 'form' | 'response' | 'onTimeout' | 'approvals' | 'responses' | 'action'
>;

/**
 * An items row as hand-written queries select it, derived from the drizzle schema (the one
 * definition of the table), with its JSON columns typed by the contract and its channel's name.
 */
export type ItemRow = SnakeKeys<Columns> & {
  form: ItemView['form'];
  /** As bound (actionPayload): its digest is action_digest. */
  action: BindableAction | null;
  response: Record<string, unknown> | null;
  channel_name: string | null;
  on_timeout: OnTimeout | null;
  approvals: StoredApprovals | null;
  responses: ItemResponse[];
  /** Display names by id (item-names.ts), where the statement read them. */
  names?: Record<string, string> | null;
};

/** Every column an item view needs, from the same schema (not the search vector). */
export const ITEM_COLUMNS: readonly string[] = Object.values(getTableColumns(schema.items))
  .map((column) => column.name)
  .filter((name) => name !== 'search');

const EXPIRE: OnTimeout = { action: 'expire' };

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The wire shape (ZItem) of a row. */
export function itemView(row: ItemRow): ItemView {
  return {
    id: row.id,
    org_id: row.org_id,
    title: row.title,
    message: row.message,
    level: row.level,
    priority: row.priority,
    channel_id: row.channel_id,
    channel: row.channel_name,
    tags: row.tags,
    form: row.form,
    action:
      row.action && row.action_digest
        ? { ...row.action, policy_version: row.action.policy_version ?? null, digest: row.action_digest }
        : null,
    receipt: row.receipt,
    require_reauth: row.require_reauth,
    metadata: row.metadata,
    callback_url: row.callback_url,
    deadline_at: iso(row.deadline_at),
    status: row.status,
    response: row.response,
    answered_at: iso(row.answered_at),
    answered_by: row.answered_by_type ? { type: row.answered_by_type, id: row.answered_by_id } : null,
    answered_via: row.answered_via,
    acked_at: iso(row.acked_at),
    acked_by: row.acked_by_type ? { type: row.acked_by_type, id: row.acked_by_id } : null,
    repeat_until_ack: row.repeat_every_minutes ? { every_minutes: row.repeat_every_minutes } : null,
    snoozed_until: iso(row.snoozed_until),
    pinned: row.pinned,
    archived_at: iso(row.archived_at),
    assignees: row.assignees,
    claimed_by:
      row.claimed_by_type && row.claimed_by_id ? { type: row.claimed_by_type, id: row.claimed_by_id } : null,
    claimed_at: iso(row.claimed_at),
    escalation: row.escalation,
    escalation_policy_id: row.escalation_policy_id,
    escalation_step: row.escalation_step,
    next_escalation_at: iso(nextStep(row)?.at ?? null),
    created_by: { type: row.created_by_type, id: row.created_by_id },
    agent_id: row.agent_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    on_timeout: row.on_timeout ?? EXPIRE,
    approvals: approvalsView(row.approvals, row.responses),
    responses: row.responses,
    names: row.names ?? {},
  };
}
