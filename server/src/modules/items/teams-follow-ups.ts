import type { EventKind } from '@beckon/contracts/items/event-kinds';
import type { Queryable } from '@beckon/db';
import { addJobFor } from '../../job-queue';
import { linkedAssignees } from './chat-follow-ups';
import type { ItemRow } from './item-view';

/**
 * The Microsoft Teams jobs of an item change, as a CTE of its statement (the statement must read
 * `(select count(*) from teams_jobs)`): a new item is posted to the conversation its channel is
 * routed to and to the chat with the bot of each linked assignee who has one (`union`: one card
 * each), `teams_post_item`; any later change of an item with Teams cards updates them
 * (`teams_update_item`, one pending per item).
 */
export function teamsJobs(sql: Queryable, row: ItemRow, event: EventKind) {
  if (event === 'item.created') {
    const routed = sql`select r.org_id, r.conversation_id from teams_routes r
       where r.org_id = ${row.org_id} and r.channel_id = ${row.channel_id}::uuid`;
    const targets =
      row.assignee_keys.length === 0
        ? routed
        : sql`${routed} union select c.org_id, c.conversation_id
            from (${linkedAssignees(sql, row, 'teams_user_links', 'teams_user_id')}) p(org_id, teams_user_id)
            join teams_conversations c on c.org_id = p.org_id and c.personal_user_id = p.teams_user_id`;
    return sql`teams_jobs as (
      select ${addJobFor(sql, 'teams_post_item', {
        item_id: sql`${row.id}::uuid`,
        org_id: sql`t.org_id`,
        conversation_id: sql`t.conversation_id`,
        delivery_id: sql`gen_random_uuid()`,
      })}
        from (${targets}) t(org_id, conversation_id))`;
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
     where exists (select 1 from teams_messages m where m.item_id = ${row.id}))`;
}
