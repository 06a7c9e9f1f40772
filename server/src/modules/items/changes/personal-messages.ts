import type { personalApps } from '@beckon/contracts/enums';
import type { Queryable } from '@beckon/db';
import type postgres from 'postgres';
import { addJobFor } from '../../../job-queue';
import { type Part, part } from '../../../statement-parts';
import { mayReadItems, type NotifyReason, type PushedItem, preferencesAllow } from '../../push/push-entries';

type App = (typeof personalApps)[number];
type Fragment = postgres.PendingQuery<postgres.Row[]>;

/**
 * The people among `people` who hear from an app through the accounts of a links table (alias
 * `l`, with `org_id` and `user_id`): members who may read items, whose notification preferences
 * let the item through (push's own filter: mutes, minimum level, quiet hours) and who did not
 * mute the app (`app`: the app's name, or an expression of `l` naming it).
 */
const reachableThrough = (
  sql: Queryable,
  table: string,
  item: PushedItem,
  people: string[],
  app: App | Fragment,
  now: Date,
) => sql`from ${sql(table)} l
      join memberships m on m.org_id = l.org_id and m.user_id = l.user_id
      join roles r on r.id = m.role_id
      left join notification_preferences p on p.user_id = l.user_id
     where l.org_id = ${item.org_id} and l.user_id = any(${people}::uuid[]) and ${mayReadItems(sql)}
       and ${preferencesAllow(sql, item, now)}
       and not coalesce(${typeof app === 'string' ? sql`${app}::text` : app} = any(p.muted_apps), false)`;

/**
 * The direct messages and texts of a notification, as parts of the caller's statement
 * (statement-parts.ts): to each of `people` who linked a
 * chat app (their Slack, Telegram and Discord DMs, their Teams chat with the bot) or verified a
 * phone (SMS or WhatsApp), under the same preferences as push and mail. A new item reaches a chat that is also its channel's
 * route once (that post is the route's, record-change.ts). The jobs post the item where it is not
 * yet, and otherwise follow it with a short nudge naming the reason (a reminder, an escalation).
 */
export function personalMessages(
  sql: Queryable,
  item: PushedItem,
  people: string[],
  now: Date,
  reason: NotifyReason,
): Part[] {
  const common = {
    item_id: sql`${item.id}::uuid`,
    org_id: sql`${item.org_id}::uuid`,
    delivery_id: sql`gen_random_uuid()`,
    reason: sql`${reason}::text`,
  };
  // Creation posts to the channel's route already: a person whose DM is that route gets one.
  const notRouted = (routes: string, column: string, target: Fragment) =>
    reason === 'created'
      ? sql`and not exists (select 1 from ${sql(routes)} x where x.org_id = l.org_id
              and x.channel_id = ${item.channel_id}::uuid and x.${sql(column)} = ${target})`
      : sql``;
  // A Teams user's chat with the bot, known once they wrote to it (teams_conversations).
  const teamsChat = sql`(select c.conversation_id from teams_conversations c
    where c.org_id = l.org_id and c.personal_user_id = l.teams_user_id order by c.last_seen_at desc limit 1)`;
  return [
    part(
      'dm_slack_jobs',
      sql`select ${addJobFor(sql, 'slack_post_item', { ...common, slack_channel_id: sql`l.slack_user_id` })}
      ${reachableThrough(sql, 'slack_user_links', item, people, 'slack', now)}
      ${notRouted('slack_routes', 'slack_channel_id', sql`l.slack_user_id`)}`,
    ),
    part(
      'dm_telegram_jobs',
      sql`select ${addJobFor(sql, 'telegram_post_item', { ...common, chat_id: sql`l.telegram_user_id` })}
      ${reachableThrough(sql, 'telegram_user_links', item, people, 'telegram', now)}
      ${notRouted('telegram_routes', 'chat_id', sql`l.telegram_user_id`)}`,
    ),
    part(
      'dm_discord_jobs',
      sql`select ${addJobFor(sql, 'discord_post_item', {
        ...common,
        discord_channel_id: sql`'user:' || l.discord_user_id`,
      })}
      ${reachableThrough(sql, 'discord_user_links', item, people, 'discord', now)}`,
    ),
    part(
      'dm_teams_jobs',
      sql`select ${addJobFor(sql, 'teams_post_item', { ...common, conversation_id: teamsChat })}
      ${reachableThrough(sql, 'teams_user_links', item, people, 'teams', now)}
       and ${teamsChat} is not null
      ${notRouted('teams_routes', 'conversation_id', teamsChat)}`,
    ),
    part(
      'text_jobs',
      sql`select ${addJobFor(sql, 'twilio_send_item', { ...common, user_id: sql`l.user_id` })}
      ${reachableThrough(sql, 'phone_numbers', item, people, sql`l.channel`, now)}
       and l.verified_at is not null and l.opted_out_at is null`,
    ),
  ];
}
