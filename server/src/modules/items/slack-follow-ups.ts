import type { EventKind } from '@beckon/contracts/items/event-kinds';
import type { Queryable } from '@beckon/db';
import { addJobFor } from '../../job-queue';
import type { ItemRow } from './item-view';

/**
 * The Slack jobs of an item change, as a CTE of its statement (the statement must read
 * `(select count(*) from slack_jobs)`): a new item of a routed channel is posted to the Slack
 * channel its organization routes it to (`slack_post_item`; its people's DMs are notifications:
 * personal-messages.ts); any later change of an item that has
 * Slack messages updates them (`slack_update_item`, one pending per item by its job key), so a
 * decision made anywhere takes the buttons away. Here rather than in modules/slack because the
 * Slack module answers items (it depends on this one).
 */
export function slackJobs(sql: Queryable, row: ItemRow, event: EventKind) {
  if (event === 'item.created') {
    return sql`slack_jobs as (
      select ${addJobFor(sql, 'slack_post_item', {
        item_id: sql`${row.id}::uuid`,
        org_id: sql`t.org_id`,
        slack_channel_id: sql`t.slack_channel_id`,
        delivery_id: sql`gen_random_uuid()`,
        reason: sql`'created'::text`,
      })}
        from slack_routes t where t.org_id = ${row.org_id} and t.channel_id = ${row.channel_id}::uuid)`;
  }
  return sql`slack_jobs as (
    select ${addJobFor(
      sql,
      'slack_update_item',
      {
        item_id: sql`${row.id}::uuid`,
        org_id: sql`${row.org_id}::uuid`,
        event: sql`${event}::text`,
        delivery_id: sql`gen_random_uuid()`,
      },
      { key: sql`${`slack_update_item:${row.id}`}::text` },
    )}
     where exists (select 1 from slack_messages m where m.org_id = ${row.org_id} and m.item_id = ${row.id}))`;
}
