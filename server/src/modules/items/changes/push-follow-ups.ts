import { answerSourceWords } from '@beckon/contracts/enums';
import type { EventKind } from '@beckon/contracts/items/event-kinds';
import type { Queryable } from '@beckon/db';
import { addJobFor } from '../../../job-queue';
import { type Part, part } from '../../../statement-parts';
import type { ItemRow } from '../rows/item-view';

/** The changes after which an item's notifications can no longer answer it. */
const CLOSING: Partial<Record<EventKind, string>> = {
  'item.answered': 'Answered',
  'item.dismissed': 'Dismissed',
  'item.expired': 'Expired: nobody answered in time',
  'item.withdrawn': 'Withdrawn by its agent',
};

/** What the replacing notification says: the outcome, who decided and where. */
export function closedBody(row: ItemRow, event: EventKind): string | null {
  const outcome = CLOSING[event];
  if (!outcome) return null;
  if (event !== 'item.answered') return outcome;
  const who = row.answered_by_id ? row.names?.[row.answered_by_id] : undefined;
  const via = row.answered_via ? answerSourceWords[row.answered_via] : undefined;
  return [outcome, who ? `by ${who}` : null, via].filter(Boolean).join(' ');
}

/**
 * Once an item is decided anywhere, every device that was pushed the item gets a push that
 * replaces it (same tag: the service worker shows it in place, without its actions), as parts of
 * the change's statement (record-change.ts); none for a change that closes nothing.
 */
export function pushCloseJobs(sql: Queryable, row: ItemRow, event: EventKind): Part[] {
  const body = closedBody(row, event);
  if (body === null) return [];
  // A PushPayload (push/push-entries.ts; not imported: the push module answers items).
  const payload = {
    title: row.title,
    body,
    item_id: row.id,
    level: row.level,
    // Resolved against APP_URL at delivery (deliver-push.ts).
    url: `/items/${row.id}`,
    closed: true as const,
  };
  const closed = sql`
    insert into push_queue (org_id, user_id, device_id, item_id, payload)
    select distinct q.org_id, q.user_id, q.device_id, q.item_id, ${sql.json(payload as never)}::jsonb
      from push_queue q
     where q.item_id = ${row.id} and q.org_id = ${row.org_id} and not q.permanently_failed
       and not (q.payload ? 'closed')
    returning id, org_id`;
  const jobs = sql`
    select ${addJobFor(sql, 'deliver_push', { entry_id: sql`e.id`, org_id: sql`e.org_id`, attempt: sql`1` })}
      from push_closed e`;
  return [part('push_closed', closed), part('push_close_jobs', jobs)];
}
