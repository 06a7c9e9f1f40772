import type { Queryable } from '@beckon/db';
import { uuidv7 } from 'uuidv7';
import type { Identity } from '../../auth/identity';
import { outcome } from './item-state';
import { type ItemRow, itemView } from './item-view';

export type Actor = { type: 'user' | 'agent' | 'system'; id: string | null };

export const actorOf = (identity: Identity): Actor =>
  identity.agentId ? { type: 'agent', id: identity.agentId } : { type: 'user', id: identity.userId };

export const SYSTEM: Actor = { type: 'system', id: null };

export const EVENT_KINDS = [
  'item.created',
  'item.updated',
  'item.answered',
  'item.dismissed',
  'item.acked',
  'item.archived',
  'item.unarchived',
  'item.restored',
  'item.expired',
  'item.withdrawn',
  'item.commented',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** Events that are reported to the item's callback_url. */
const CALLBACK_EVENTS: ReadonlySet<EventKind> = new Set([
  'item.answered',
  'item.dismissed',
  'item.acked',
  'item.archived',
  'item.unarchived',
  'item.restored',
  'item.expired',
  'item.withdrawn',
]);

export type CallbackJob = {
  delivery_id: string;
  org_id: string;
  item_id: string;
  event: EventKind;
  url: string;
  /** The exact JSON that is sent and signed, frozen at the time of the change. */
  body: string;
  attempt: number;
};

export function callbackBody(row: ItemRow, event: EventKind): string {
  return JSON.stringify({
    item_id: row.id,
    status: outcome(row.status, row.status_before_archive),
    response: row.response,
    answered_at: row.answered_at?.toISOString() ?? null,
    metadata: row.metadata,
    title: row.title,
    event,
  });
}

export async function enqueueJob(
  sql: Queryable,
  task: string,
  payload: object,
  options: { runAt?: Date; key?: string } = {},
) {
  await sql`select graphile_worker.add_job(
    identifier => ${task}, payload => ${sql.json(payload as never)}::json, max_attempts => 1,
    run_at => ${options.runAt ?? null}::timestamptz, job_key => ${options.key ?? null})`;
}

/**
 * Everything that follows a change of an item, written in the caller's transaction: the audit
 * entry, the event for the real-time streams and, when the item has a callback URL, the callback
 * job. A rollback takes all of it back.
 */
export async function recordItemChange(
  tx: Queryable,
  change: {
    row: ItemRow;
    action: string;
    actor: Actor;
    event: EventKind | null;
    data?: Record<string, unknown>;
  },
): Promise<void> {
  const { row, actor, event } = change;
  await tx`insert into audit_entries (id, org_id, item_id, action, actor_type, actor_id, data)
           values (${uuidv7()}, ${row.org_id}, ${row.id}, ${change.action}, ${actor.type}, ${actor.id},
                   ${tx.json((change.data ?? {}) as never)})`;
  if (!event) return;
  const eventId = uuidv7();
  await tx`insert into events (id, org_id, type, item_id, agent_id, data)
           values (${eventId}, ${row.org_id}, ${event}, ${row.id}, ${row.agent_id},
                   ${tx.json({ item: itemView(row) } as never)})`;
  await tx`select pg_notify('beckon_events', ${`${row.org_id}:${eventId}`})`;
  if (row.callback_url && CALLBACK_EVENTS.has(event)) {
    const job: CallbackJob = {
      delivery_id: uuidv7(),
      org_id: row.org_id,
      item_id: row.id,
      event,
      url: row.callback_url,
      body: callbackBody(row, event),
      attempt: 1,
    };
    await enqueueJob(tx, 'deliver_callback', job);
  }
}
