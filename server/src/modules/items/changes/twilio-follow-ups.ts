import type { EventKind } from '@beckon/contracts/items/event-kinds';
import type { Queryable } from '@beckon/db';
import { addJobFor } from '../../../job-queue';
import { type Part, part } from '../../../statement-parts';
import type { ItemRow } from '../rows/item-view';

/** The changes after which a texted item can no longer be answered: its people are told. */
const CLOSING: ReadonlySet<EventKind> = new Set([
  'item.answered',
  'item.dismissed',
  'item.expired',
  'item.withdrawn',
]);

/**
 * The SMS and WhatsApp jobs of an item change, as a part of its statement (record-change.ts), or null when the change sends nothing: a decision
 * of an item that was texted (its people's texts are notifications: personal-messages.ts) tells
 * them, once (`twilio_close_item`, one pending per item by its job key), since a text cannot be
 * edited.
 * Here rather than in modules/twilio because that module answers items (it depends on this one).
 */
export function twilioJobs(sql: Queryable, row: ItemRow, event: EventKind): Part | null {
  if (!CLOSING.has(event)) return null;
  return part(
    'twilio_jobs',
    sql`select ${addJobFor(
      sql,
      'twilio_close_item',
      {
        item_id: sql`${row.id}::uuid`,
        org_id: sql`${row.org_id}::uuid`,
        event: sql`${event}::text`,
        delivery_id: sql`gen_random_uuid()`,
      },
      { key: sql`${`twilio_close_item:${row.id}`}::text` },
    )}
     where exists (select 1 from twilio_messages m where m.org_id = ${row.org_id} and m.item_id = ${row.id} and not m.closed_notice)`,
  );
}
