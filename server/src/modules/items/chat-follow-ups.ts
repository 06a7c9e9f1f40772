import type { EventKind } from '@beckon/contracts/items/event-kinds';
import type { Queryable } from '@beckon/db';
import { addJobFor } from '../../job-queue';
import type { ItemRow } from './item-view';

/**
 * The people behind an item's assignees (users, members of its teams, holders of its roles) who
 * linked an account of a chat app, as `(org_id, <account column>)` rows of a links table.
 */
export function linkedAssignees(sql: Queryable, row: ItemRow, table: string, column: string) {
  const keys = row.assignee_keys;
  return sql`select l.org_id, l.${sql(column)} from ${sql(table)} l
      join memberships m on m.org_id = l.org_id and m.user_id = l.user_id
      join roles ro on ro.id = m.role_id
     where l.org_id = ${row.org_id}
       and ('user:' || m.user_id::text = any(${keys}::text[])
            or 'role:' || ro.name = any(${keys}::text[])
            or exists (select 1 from team_members tm join teams t on t.id = tm.team_id
                        where t.org_id = ${row.org_id} and tm.user_id = m.user_id
                          and 'team:' || tm.team_id::text = any(${keys}::text[])))`;
}

/**
 * The Telegram jobs of an item change, as a CTE of its statement (the statement must read
 * `(select count(*) from telegram_jobs)`): a new item is posted to the chat its channel is routed
 * to and to the private chat of each linked assignee (a Telegram user's private chat with the bot
 * has the user's id; `union`: one message each), `telegram_post_item`; any later change of an
 * item with Telegram messages edits them (`telegram_update_item`, one pending per item).
 */
export function telegramJobs(sql: Queryable, row: ItemRow, event: EventKind) {
  if (event === 'item.created') {
    const routed = sql`select r.org_id, r.chat_id from telegram_routes r
       where r.org_id = ${row.org_id} and r.channel_id = ${row.channel_id}::uuid`;
    const targets =
      row.assignee_keys.length === 0
        ? routed
        : sql`${routed} union ${linkedAssignees(sql, row, 'telegram_user_links', 'telegram_user_id')}`;
    return sql`telegram_jobs as (
      select ${addJobFor(sql, 'telegram_post_item', {
        item_id: sql`${row.id}::uuid`,
        org_id: sql`t.org_id`,
        chat_id: sql`t.chat_id`,
        delivery_id: sql`gen_random_uuid()`,
      })}
        from (${targets}) t(org_id, chat_id))`;
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
     where exists (select 1 from telegram_messages m where m.item_id = ${row.id}))`;
}

/**
 * The Discord jobs of an item change, as a CTE of its statement (the statement must read
 * `(select count(*) from discord_jobs)`): a new item is posted to the Discord channel its channel
 * is routed to and to the DM of each linked assignee (`discord_post_item`); any later change of an item with Discord messages updates
 * them (`discord_update_item`, one pending per item).
 */
export function discordJobs(sql: Queryable, row: ItemRow, event: EventKind) {
  if (event === 'item.created') {
    const routed = sql`select r.org_id, r.discord_channel_id from discord_routes r
       where r.org_id = ${row.org_id} and r.channel_id = ${row.channel_id}::uuid`;
    // A linked person is a `user:<id>` target: the job opens their DM with the bot first.
    const targets =
      row.assignee_keys.length === 0
        ? routed
        : sql`${routed} union select p.org_id, 'user:' || p.discord_user_id
            from (${linkedAssignees(sql, row, 'discord_user_links', 'discord_user_id')}) p`;
    return sql`discord_jobs as (
      select ${addJobFor(sql, 'discord_post_item', {
        item_id: sql`${row.id}::uuid`,
        org_id: sql`t.org_id`,
        discord_channel_id: sql`t.target`,
        delivery_id: sql`gen_random_uuid()`,
      })}
        from (${targets}) t(org_id, target))`;
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
     where exists (select 1 from discord_messages m where m.item_id = ${row.id}))`;
}
