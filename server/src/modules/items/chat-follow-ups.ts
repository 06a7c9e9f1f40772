import type { EventKind } from '@beckon/contracts/items/event-kinds';
import type { Queryable } from '@beckon/db';
import { addJobFor } from '../../job-queue';
import type { ItemRow } from './item-view';

/**
 * The Telegram jobs of an item change, as a CTE of its statement (the statement must read
 * `(select count(*) from telegram_jobs)`): a new item is posted to the chat its channel is routed
 * to (`telegram_post_item`; its people's private chats are notifications: personal-messages.ts);
 * any later change of an item with Telegram messages edits them (`telegram_update_item`, one
 * pending per item).
 */
export function telegramJobs(sql: Queryable, row: ItemRow, event: EventKind) {
  if (event === 'item.created') {
    return sql`telegram_jobs as (
      select ${addJobFor(sql, 'telegram_post_item', {
        item_id: sql`${row.id}::uuid`,
        org_id: sql`t.org_id`,
        chat_id: sql`t.chat_id`,
        delivery_id: sql`gen_random_uuid()`,
        reason: sql`'created'::text`,
      })}
        from telegram_routes t where t.org_id = ${row.org_id} and t.channel_id = ${row.channel_id}::uuid)`;
  }
  return sql`telegram_jobs as (
    select ${addJobFor(
      sql,
      'telegram_update_item',
      {
        item_id: sql`${row.id}::uuid`,
        org_id: sql`${row.org_id}::uuid`,
        event: sql`${event}::text`,
        delivery_id: sql`gen_random_uuid()`,
      },
      { key: sql`${`telegram_update_item:${row.id}`}::text` },
    )}
     where exists (select 1 from telegram_messages m where m.org_id = ${row.org_id} and m.item_id = ${row.id}))`;
}

/**
 * The Discord jobs of an item change, as a CTE of its statement (the statement must read
 * `(select count(*) from discord_jobs)`): a new item is posted to the Discord channel its channel
 * is routed to (`discord_post_item`; its people's DMs are notifications: personal-messages.ts); any
 * later change of an item with Discord messages updates them (`discord_update_item`, one pending
 * per item).
 */
export function discordJobs(sql: Queryable, row: ItemRow, event: EventKind) {
  if (event === 'item.created') {
    return sql`discord_jobs as (
      select ${addJobFor(sql, 'discord_post_item', {
        item_id: sql`${row.id}::uuid`,
        org_id: sql`t.org_id`,
        discord_channel_id: sql`t.discord_channel_id`,
        delivery_id: sql`gen_random_uuid()`,
        reason: sql`'created'::text`,
      })}
        from discord_routes t where t.org_id = ${row.org_id} and t.channel_id = ${row.channel_id}::uuid)`;
  }
  return sql`discord_jobs as (
    select ${addJobFor(
      sql,
      'discord_update_item',
      {
        item_id: sql`${row.id}::uuid`,
        org_id: sql`${row.org_id}::uuid`,
        event: sql`${event}::text`,
        delivery_id: sql`gen_random_uuid()`,
      },
      { key: sql`${`discord_update_item:${row.id}`}::text` },
    )}
     where exists (select 1 from discord_messages m where m.org_id = ${row.org_id} and m.item_id = ${row.id}))`;
}
