import type { EventKind } from '@beckon/contracts/items/event-kinds';
import type { Queryable } from '@beckon/db';
import { addJobFor } from '../../job-queue';
import type { ItemRow } from './item-view';

/**
 * The Microsoft Teams jobs of an item change, as a CTE of its statement (the statement must read
 * `(select count(*) from teams_jobs)`): a new item is posted to the conversation its channel is
 * routed to (`teams_post_item`); any later change of an item with Teams cards updates them
 * (`teams_update_item`, one pending per item).
 */
export function teamsJobs(sql: Queryable, row: ItemRow, event: EventKind) {
  if (event === 'item.created') {
    return sql`teams_jobs as (
      select ${addJobFor(sql, 'teams_post_item', {
        item_id: sql`${row.id}::uuid`,
        org_id: sql`t.org_id`,
        conversation_id: sql`t.conversation_id`,
        delivery_id: sql`gen_random_uuid()`,
        reason: sql`'created'::text`,
      })}
        from teams_routes t where t.org_id = ${row.org_id} and t.channel_id = ${row.channel_id}::uuid)`;
  }
  return sql`teams_jobs as (
    select ${addJobFor(
      sql,
      'teams_update_item',
      {
        item_id: sql`${row.id}::uuid`,
        org_id: sql`${row.org_id}::uuid`,
        event: sql`${event}::text`,
        delivery_id: sql`gen_random_uuid()`,
      },
      { key: sql`${`teams_update_item:${row.id}`}::text` },
    )}
     where exists (select 1 from teams_messages m where m.org_id = ${row.org_id} and m.item_id = ${row.id}))`;
}
