import type { Queryable } from '@beckon/db';
import type { itemLevels } from '@beckon/db/schema';
import type { Env } from '../../env';
import type { Actor } from '../items/item-changes';
import type { ItemRow } from '../items/item-view';

export const PUSH_CHANNEL = 'beckon_push';

/** Levels from least to most urgent: `min_level` keeps those at or after it. */
const LEVEL_ORDER = ['info', 'success', 'warning', 'error'] satisfies (typeof itemLevels)[number][];

/** What a push says: shown by the device, with where a tap leads. */
export type PushPayload = { title: string; body: string; item_id: string; level: string; url: string };

export function pushPayload(env: Env, row: ItemRow): PushPayload {
  const body = row.message ?? '';
  return {
    title: row.title,
    body: body.length > 200 ? `${body.slice(0, 199)}…` : body,
    item_id: row.id,
    level: row.level,
    url: `${env.APP_URL}/items/${row.id}`,
  };
}

/**
 * The push entries of a new item, as a CTE of its creation statement (so they commit with it):
 * one per device of each member who may read items, except its creator, unless their
 * preferences say no (a muted channel, a level below their minimum, or their quiet hours in
 * their time zone, where only the allowed levels pass).
 */
export const pushEntries = (sql: Queryable, env: Env, row: ItemRow, creator: Actor, now: Date) => {
  const local = sql`(${now}::timestamptz at time zone p.timezone)::time`;
  const start = sql`p.quiet_hours_start::time`;
  const end = sql`p.quiet_hours_end::time`;
  return sql`push_entries as (
    insert into push_queue (org_id, user_id, device_id, item_id, payload)
    select d.org_id, d.user_id, d.id, ${row.id}::uuid, ${sql.json(pushPayload(env, row) as never)}
      from devices d
      join memberships m on m.org_id = d.org_id and m.user_id = d.user_id
      join roles r on r.id = m.role_id
      left join notification_preferences p on p.user_id = d.user_id
     where d.org_id = ${row.org_id}
       and r.permissions && array['items.read', 'items.*', '*']
       and d.user_id is distinct from ${creator.type === 'user' ? creator.id : null}::uuid
       and array_position(${LEVEL_ORDER}::text[], ${row.level})
           >= array_position(${LEVEL_ORDER}::text[], coalesce(p.min_level, 'info'))
       and not coalesce(${row.channel_id}::uuid = any(p.muted_channels), false)
       and not (coalesce(p.quiet_hours_enabled, false)
                and case when ${start} <= ${end} then ${local} >= ${start} and ${local} < ${end}
                         else ${local} >= ${start} or ${local} < ${end} end
                and not ${row.level} = any(string_to_array(p.quiet_hours_allow_levels, ',')))
    returning 1)`;
};
