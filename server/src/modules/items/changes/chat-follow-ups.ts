import type { EventKind } from '@beckon/contracts/items/event-kinds';
import type { Queryable } from '@beckon/db';
import type postgres from 'postgres';
import { OrgFacts } from '../../../caches/org-facts';
import { addJobFor } from '../../../job-queue';
import { type Part, part } from '../../../statement-parts';
import type { ItemRow } from '../rows/item-view';

type Fragment = postgres.PendingQuery<postgres.Row[]>;
/** What every post job carries besides where it posts to (routes `t`). */
type Common = { item_id: Fragment; org_id: Fragment; delivery_id: Fragment; reason: Fragment };

/**
 * Per chat app: the routes of channels to its chats, the post job of a new item (to the chat a
 * route names: `t.<column>`), the table of the messages it posted and the job that updates them.
 */
const APPS = {
  slack: {
    routes: 'slack_routes',
    messages: 'slack_messages',
    update: 'slack_update_item',
    post: (sql: Queryable, common: Common) =>
      addJobFor(sql, 'slack_post_item', { ...common, slack_channel_id: sql`t.slack_channel_id` }),
  },
  telegram: {
    routes: 'telegram_routes',
    messages: 'telegram_messages',
    update: 'telegram_update_item',
    post: (sql: Queryable, common: Common) =>
      addJobFor(sql, 'telegram_post_item', { ...common, chat_id: sql`t.chat_id` }),
  },
  discord: {
    routes: 'discord_routes',
    messages: 'discord_messages',
    update: 'discord_update_item',
    post: (sql: Queryable, common: Common) =>
      addJobFor(sql, 'discord_post_item', { ...common, discord_channel_id: sql`t.discord_channel_id` }),
  },
  teams: {
    routes: 'teams_routes',
    messages: 'teams_messages',
    update: 'teams_update_item',
    post: (sql: Queryable, common: Common) =>
      addJobFor(sql, 'teams_post_item', { ...common, conversation_id: sql`t.conversation_id` }),
  },
} as const;

export type ChatApp = keyof typeof APPS;
export const CHAT_APPS = Object.keys(APPS) as ChatApp[];

/** The chat apps an organization is connected to (OrgFacts: remembered, else asked). */
export async function connectedChatApps(deps: Parameters<typeof OrgFacts.has>[0], orgId: string) {
  const connected = await Promise.all(CHAT_APPS.map((app) => OrgFacts.has(deps, app, orgId)));
  return CHAT_APPS.filter((_app, i) => connected[i]);
}

/**
 * A chat app's jobs of an item change, as a part of its statement (record-change.ts): a new item
 * of a routed channel is posted to the chat (Slack channel, Telegram chat, Discord channel, Teams
 * conversation) its organization routes that channel to (its people's DMs are notifications:
 * personal-messages.ts); any later change of an item the app posted updates its messages (one
 * pending update per item, by its job key), so a decision made anywhere takes the buttons away.
 * Here rather than in the apps' modules because those answer items (they depend on this one).
 */
export function chatAppJobs(sql: Queryable, row: ItemRow, event: EventKind, app: ChatApp): Part {
  const { routes, messages, update, post } = APPS[app];
  if (event === 'item.created') {
    const common = {
      item_id: sql`${row.id}::uuid`,
      org_id: sql`t.org_id`,
      delivery_id: sql`gen_random_uuid()`,
      reason: sql`'created'::text`,
    };
    return part(
      `${app}_jobs`,
      sql`select ${post(sql, common)}
            from ${sql(routes)} t where t.org_id = ${row.org_id} and t.channel_id = ${row.channel_id}::uuid`,
    );
  }
  const job = addJobFor(
    sql,
    update,
    {
      item_id: sql`${row.id}::uuid`,
      org_id: sql`${row.org_id}::uuid`,
      event: sql`${event}::text`,
      delivery_id: sql`gen_random_uuid()`,
    },
    { key: sql`${`${update}:${row.id}`}::text` },
  );
  return part(
    `${app}_jobs`,
    sql`select ${job} where exists (select 1 from ${sql(messages)} m where m.org_id = ${row.org_id} and m.item_id = ${row.id})`,
  );
}
