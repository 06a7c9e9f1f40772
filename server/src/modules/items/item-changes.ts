import { CALLBACK_EVENT_KINDS, type EventKind } from '@beckon/contracts/items/event-kinds';
import type { Queryable } from '@beckon/db';
import { uuidv7 } from 'uuidv7';
import type { Actor } from '../../auth/identity';
import type { CallbackJob } from '../../delivery/delivery-job';
import { addJob, addJobFor } from '../../job-queue';
import { auditCtes } from '../audit/audit.service';
import { discordJobs, telegramJobs } from './chat-follow-ups';
import { namesOfIds, referencedIds } from './item-names';
import { outcome } from './item-state';
import { type ItemRow, itemView } from './item-view';
import { pushCloseJobs } from './push-follow-ups';
import { slackJobs } from './slack-follow-ups';
import { teamsJobs } from './teams-follow-ups';
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

/** The job that expires an item at its deadline: one per item (job key), replaced when it moves. */
export const expiryJob = (sql: Queryable, row: ItemRow) =>
  addJob(
    sql,
    'expire_item',
    { item_id: row.id, org_id: row.org_id },
    { runAt: row.deadline_at ?? undefined, key: `expire_item:${row.id}` },
  );

type Change = {
  row: ItemRow;
  action: string;
  actor: Actor;
  event: EventKind | null;
  data?: Record<string, unknown>;
  /** false when the organization is known to have no active webhooks (OrgFacts.has). */
  webhooks?: boolean;
  /** false when the organization is known to have no Slack workspace (OrgFacts.has). */
  slack?: boolean;
};

/**
 * A `deliver_webhook` job for each active webhook of the organization subscribed to the event,
 * as a CTE (a SELECT in WITH runs only as far as the statement reads it: see followUps).
 */
const webhookJobs = (
  sql: Queryable,
  orgId: string,
  event: EventKind,
  eventId: string,
) => sql`webhook_jobs as (
  select ${addJobFor(sql, 'deliver_webhook', {
    webhook_id: sql`w.id`,
    org_id: sql`w.org_id`,
    event_id: sql`${eventId}::uuid`,
    delivery_id: sql`gen_random_uuid()`,
    attempt: sql`1`,
  })}
    from webhooks w
   where w.org_id = ${orgId} and w.active and (${event}::text = any(w.events) or '*' = any(w.events)))`;

/**
 * What follows a change of an item, as parts of one SQL statement: the audit entry and the
 * stream event (data-modifying CTEs), the jobs of the webhooks subscribed to the event, then the
 * notification and, when the item has a callback URL, the callback job (select expressions).
 * Being one statement, it commits or rolls back with the change it follows.
 */

/** An event's data: the item as the API shows it, with its names read in the same statement. */
const eventData = (sql: Queryable, row: ItemRow) =>
  row.names
    ? sql.json({ item: itemView(row) } as never)
    : sql`jsonb_set(${sql.json({ item: itemView(row) } as never)}::jsonb, '{item,names}',
                    ${namesOfIds(sql, row.org_id, referencedIds(row))})`;

export function followUps(sql: Queryable, change: Change) {
  const { row, actor, event } = change;
  const audit = auditCtes(sql, {
    orgId: row.org_id,
    itemId: row.id,
    action: change.action,
    actor,
    data: change.data ?? {},
  });
  if (!event) return { ctes: audit, select: sql`1` };
  const eventId = uuidv7();
  const fanOut = change.webhooks !== false;
  const slack = change.slack !== false;
  const pushClose = pushCloseJobs(sql, row, event);
  const texts = twilioJobs(sql, row, event);
  const ctes = sql`${audit}, stream as (
    insert into events (id, org_id, type, item_id, agent_id, data)
    values (${eventId}, ${row.org_id}, ${event}, ${row.id}, ${row.agent_id}, ${eventData(sql, row)}))
    ${fanOut ? sql`, ${webhookJobs(sql, row.org_id, event, eventId)}` : sql``}
    ${slack ? sql`, ${slackJobs(sql, row, event)}` : sql``}
    , ${telegramJobs(sql, row, event)}, ${discordJobs(sql, row, event)}, ${teamsJobs(sql, row, event)}
    ${pushClose ? sql`, ${pushClose}` : sql``}
    ${texts ? sql`, ${texts}` : sql``}`;
  const notify = sql`pg_notify('beckon_events', ${`${row.org_id}:${eventId}`})
    ${fanOut ? sql`, (select count(*) from webhook_jobs)` : sql``}
    ${slack ? sql`, (select count(*) from slack_jobs)` : sql``}
    , (select count(*) from telegram_jobs), (select count(*) from discord_jobs), (select count(*) from teams_jobs)
    ${pushClose ? sql`, (select count(*) from push_close_jobs)` : sql``}
    ${texts ? sql`, (select count(*) from twilio_jobs)` : sql``}`;
  if (!row.callback_url || !CALLBACK_EVENTS.has(event)) return { ctes, select: notify };
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
  return { ctes, select: sql`${notify}, ${addJob(sql, 'deliver_callback', job)}` };
}

/** Writes the follow-ups of a change in the caller's transaction (one round trip). */
export async function recordItemChange(tx: Queryable, change: Change): Promise<void> {
  const { ctes, select } = followUps(tx, change);
  await tx`with ${ctes} select ${select}`;
}
