import { CALLBACK_EVENT_KINDS, type EventKind } from '@beckon/contracts/items/event-kinds';
import type { Queryable } from '@beckon/db';
import type postgres from 'postgres';
import { uuidv7 } from 'uuidv7';
import type { Actor } from '../../../auth/identity';
import type { CallbackJob } from '../../../delivery/delivery-job';
import { addJob, addJobFor } from '../../../job-queue';
import { markWritten } from '../../../realtime/sequencer';
import { type Part, part, statementOf } from '../../../statement-parts';
import { auditParts } from '../../audit/audit.service';
import { namesOfIds, referencedIds } from '../rows/item-names';
import { type ItemRow, itemView } from '../rows/item-view';
import { outcome } from '../state/item-state';
import { CHAT_APPS, type ChatApp, chatAppJobs } from './chat-follow-ups';
import { pushCloseJobs } from './push-follow-ups';
import { twilioJobs } from './twilio-follow-ups';

/** Events that are reported to the item's callback_url. */
const CALLBACK_EVENTS: ReadonlySet<EventKind> = new Set(CALLBACK_EVENT_KINDS);

export function callbackBody(row: ItemRow, event: EventKind): string {
  return JSON.stringify({
    item_id: row.id,
    status: outcome(row.status, row.status_before_archive),
    response: row.response,
    answered_at: row.answered_at?.toISOString() ?? null,
    // Who answered (a person, an agent, or the service): the item's own `answered_by`.
    answered_by: row.answered_by_type ? { type: row.answered_by_type, id: row.answered_by_id } : null,
    // Where the person answered ("email", "slack", "telegram", "sms", ...); null for the API and the dashboard.
    answered_via: row.answered_via,
    // The digest of the action the answer decides (null when the item binds none).
    action_digest: row.action_digest,
    // The decision's signed receipt (null for events that decide nothing).
    receipt: row.receipt,
    metadata: row.metadata,
    title: row.title,
    event,
  });
}

type Fragment = postgres.PendingQuery<postgres.Row[]>;

/** A change of an item, and what goes with it into its one statement. */
export type ItemChange = {
  row: ItemRow;
  action: string;
  actor: Actor;
  event: EventKind | null;
  data?: Record<string, unknown>;
  /** false when the organization is known to have no active webhooks (OrgFacts.has). */
  webhooks?: boolean;
  /** The chat apps the organization is connected to (connectedChatApps); absent: every app. */
  chatApps?: readonly ChatApp[];
  /** The write of the change itself, when it goes in the same statement (creation's insert). */
  write?: Part;
  /** Who is told of the change (notify-people.ts: notificationParts). */
  notify?: Part[];
  /** The jobs the change schedules or removes: expiry, escalation step, repeat. */
  schedule?: (Part | null)[];
  /** What the statement gives back (recordChange's result). */
  result?: Fragment;
};

/** A `deliver_webhook` job for each active webhook of the organization subscribed to the event. */
const webhookJobs = (sql: Queryable, orgId: string, event: EventKind, eventId: string) =>
  part(
    'webhook_jobs',
    sql`select ${addJobFor(sql, 'deliver_webhook', {
      webhook_id: sql`w.id`,
      org_id: sql`w.org_id`,
      event_id: sql`${eventId}::uuid`,
      delivery_id: sql`gen_random_uuid()`,
      attempt: sql`1`,
    })}
    from webhooks w
   where w.org_id = ${orgId} and w.active and (${event}::text = any(w.events) or '*' = any(w.events))`,
  );

/** An event's data: the item as the API shows it, with its names read in the same statement. */
const eventData = (sql: Queryable, row: ItemRow) =>
  row.names
    ? sql.json({ item: itemView(row) } as never)
    : sql`jsonb_set(${sql.json({ item: itemView(row) } as never)}::jsonb, '{item,names}',
                    ${namesOfIds(sql, row.org_id, referencedIds(row))})`;

/**
 * The `names` of the item as its change's event holds them, as a `result` of recordChange: a
 * creation's answer names what its event names without looking the names up a second time.
 */
export const eventNames = (sql: Queryable) => sql`(select names from stream)`;

/** The job that reports an event to the item's callback URL, when it has one and the event is reported. */
function callbackJob(sql: Queryable, row: ItemRow, event: EventKind) {
  if (!row.callback_url || !CALLBACK_EVENTS.has(event)) return null;
  const job: CallbackJob = {
    delivery_id: uuidv7(),
    org_id: row.org_id,
    item_id: row.id,
    event,
    url: row.callback_url,
    body: callbackBody(row, event),
    attempt: 1,
    ...(row.trace_context ? { trace: row.trace_context } : {}),
  };
  return part('callback_job', sql`select ${addJob(sql, 'deliver_callback', job)}`);
}

/**
 * What an event causes: the stream event (numbered and announced to the streams by the
 * sequencer once committed, realtime/sequencer.ts), the jobs of the
 * webhooks subscribed to it, the chat apps' posts and updates, the pushes that close the item on
 * devices, the texts that say it was decided, and the callback.
 */
function eventParts(sql: Queryable, change: ItemChange, event: EventKind): Part[] {
  const { row } = change;
  const eventId = uuidv7();
  markWritten(row.org_id);
  return [
    part(
      'stream',
      sql`insert into events (id, org_id, type, item_id, agent_id, data)
          values (${eventId}, ${row.org_id}, ${event}, ${row.id}, ${row.agent_id}, ${eventData(sql, row)})
          returning id, data->'item'->'names' as names`,
    ),
    ...(change.webhooks !== false ? [webhookJobs(sql, row.org_id, event, eventId)] : []),
    ...(change.chatApps ?? CHAT_APPS).map((app) => chatAppJobs(sql, row, event, app)),
    ...pushCloseJobs(sql, row, event),
    twilioJobs(sql, row, event),
    callbackJob(sql, row, event),
  ].filter((p) => p !== null);
}

/**
 * The one way an item change leaves a trace: one statement (so one round trip, committing or
 * rolling back with the change) of the change's own write if it comes with it, its audit entry,
 * what its event causes (eventParts), the notifications of the people it reaches and the jobs it
 * schedules, each a part that the statement reads back (statement-parts.ts), so none is skipped.
 * Answers the statement's `result`.
 */
export async function recordChange(tx: Queryable, change: ItemChange): Promise<unknown> {
  const { row, event } = change;
  const audit = auditParts(tx, {
    orgId: row.org_id,
    itemId: row.id,
    action: change.action,
    actor: change.actor,
    data: change.data ?? {},
  });
  const parts = [
    ...(change.write ? [change.write] : []),
    ...audit,
    ...(event ? eventParts(tx, change, event) : []),
    ...(change.notify ?? []),
    ...(change.schedule ?? []).filter((p) => p !== null),
  ];
  const [written] = await statementOf(tx, parts, change.result);
  return written?.result;
}
