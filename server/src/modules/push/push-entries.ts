import type { Queryable } from '@beckon/db';
import type { itemLevels } from '@beckon/db/schema';
import type { Env } from '../../env';
import { addJobFor } from '../../job-queue';
import { type Part, part } from '../../statement-parts';

/** Levels from least to most urgent: `min_level` keeps those at or after it. */
export const LEVEL_ORDER = ['info', 'success', 'warning', 'error'] satisfies (typeof itemLevels)[number][];

/**
 * What a push says: shown by the device, with where a tap leads. A push of an item that can be
 * answered from the notification (one yes/no, choice or checkbox field) also carries its choices
 * as `actions` and where to post the pressed one (`answer`: a token signed for its person, added
 * at delivery). `closed` replaces an earlier push of the item once it is decided anywhere.
 */
export type PushPayload = {
  title: string;
  body: string;
  item_id: string;
  level: string;
  url: string;
  actions?: { action: string; title: string }[];
  answer?: { url: string; token: string };
  closed?: true;
};

/** The fields of a new item that its pushes depend on. */
export type PushedItem = {
  id: string;
  org_id: string;
  title: string;
  message: string | null;
  level: string;
  channel_id: string | null;
};

/** Why an item reaches people: created, then assigned to them, a reminder, an escalation to them. */
export type NotifyReason = 'created' | 'assigned' | 'reminded' | 'escalated';

/** What a notification's title starts with, by reason (pushes, mails, chat nudges, texts). */
export const TITLE_PREFIX: Record<NotifyReason, string> = {
  created: '',
  assigned: 'Assigned to you: ',
  reminded: 'Reminder: ',
  escalated: 'Escalated: ',
};

/**
 * Who an item's notifications reach: everyone who may read items but one person (its creator),
 * or only the people named (assignees, escalation steps); in both cases members who may read
 * items, under their preferences.
 */
export type Recipients = { except: string | null } | { only: string[] };

export function pushPayload(env: Env, item: PushedItem, reason: NotifyReason = 'created'): PushPayload {
  const body = item.message ?? '';
  return {
    title: `${TITLE_PREFIX[reason]}${item.title}`,
    body: body.length > 200 ? `${body.slice(0, 199)}…` : body,
    item_id: item.id,
    level: item.level,
    url: `${env.APP_URL}/items/${item.id}`,
  };
}

/**
 * Whether a person's preferences (`p`, a left-joined notification_preferences row: none means
 * the defaults) let an item reach them: not a muted channel, not below their minimum level, and
 * outside their quiet hours in their time zone unless the level is one allowed then. Every
 * channel (push, email) filters with this one predicate.
 */
export const preferencesAllow = (
  sql: Queryable,
  item: Pick<PushedItem, 'level' | 'channel_id'>,
  now: Date,
) => {
  const local = sql`(${now}::timestamptz at time zone p.timezone)::time`;
  const start = sql`p.quiet_hours_start::time`;
  const end = sql`p.quiet_hours_end::time`;
  return sql`array_position(${LEVEL_ORDER}::text[], ${item.level})
           >= array_position(${LEVEL_ORDER}::text[], coalesce(p.min_level, 'info'))
       and not coalesce(${item.channel_id}::uuid = any(p.muted_channels), false)
       and not (coalesce(p.quiet_hours_enabled, false)
                and case when ${start} <= ${end} then ${local} >= ${start} and ${local} < ${end}
                         else ${local} >= ${start} or ${local} < ${end} end
                and not ${item.level} = any(string_to_array(p.quiet_hours_allow_levels, ',')))`;
};

/** Whether a role (`r`) may read items: who any channel may notify of one. */
export const mayReadItems = (sql: Queryable) => sql`r.permissions && array['items.read', 'items.*', '*']`;

/**
 * The push entries of an item and their `deliver_push` jobs, as parts of the caller's statement
 * (statement-parts.ts; so they commit with it): one entry per device of each recipient who may read items, unless their
 * preferences say no (`preferencesAllow`).
 */
export const pushEntries = (
  sql: Queryable,
  env: Env,
  item: PushedItem,
  recipients: Recipients,
  now: Date,
  reason: NotifyReason = 'created',
): Part[] => {
  const who =
    'only' in recipients
      ? sql`d.user_id = any(${recipients.only}::uuid[])`
      : sql`d.user_id is distinct from ${recipients.except}::uuid`;
  const entries = sql`
    insert into push_queue (org_id, user_id, device_id, item_id, payload)
    select d.org_id, d.user_id, d.id, ${item.id}::uuid, ${sql.json(pushPayload(env, item, reason) as never)}
      from devices d
      join memberships m on m.org_id = d.org_id and m.user_id = d.user_id
      join roles r on r.id = m.role_id
      left join notification_preferences p on p.user_id = d.user_id
     where d.org_id = ${item.org_id}
       and ${mayReadItems(sql)}
       and ${who}
       and ${preferencesAllow(sql, item, now)}
    returning id, org_id`;
  const jobs = sql`
    select ${addJobFor(sql, 'deliver_push', { entry_id: sql`e.id`, org_id: sql`e.org_id`, attempt: sql`1` })}
      from push_entries e`;
  return [part('push_entries', entries), part('push_jobs', jobs)];
};
