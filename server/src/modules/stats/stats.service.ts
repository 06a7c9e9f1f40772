import type { StatsView } from '@beckon/contracts/stats/stats.contract';
import { itemLevels } from '@beckon/db/schema';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';

/** The key of items without a channel (no channel name can contain parentheses). */
export const NO_CHANNEL = '(none)';

type LevelRow = {
  level: string;
  total: number;
  open: number;
  answered: number;
  dismissed: number;
  archived: number;
};

/** Counts over all the organization's items: one query by level (with the statuses), one by channel. */
export async function getStats(deps: Deps, identity: Identity): Promise<StatsView> {
  const { sql } = deps;
  const orgId = identity.orgId;
  // A key restricted to its agent's items counts those alone.
  const mine = identity.itemsOfAgent ? sql`and agent_id = ${identity.itemsOfAgent}` : sql``;
  const mineI = identity.itemsOfAgent ? sql`and i.agent_id = ${identity.itemsOfAgent}` : sql``;
  const [levels, channels] = await Promise.all([
    sql<LevelRow[]>`
      select level, count(*)::int as total,
             count(*) filter (where status = 'open')::int as open,
             count(*) filter (where status = 'answered')::int as answered,
             count(*) filter (where status = 'dismissed')::int as dismissed,
             count(*) filter (where status = 'archived')::int as archived
        from items where org_id = ${orgId} ${mine} group by level`,
    sql<{ name: string; count: number }[]>`
      select c.name, count(i.id)::int as count
        from channels c left join items i on i.channel_id = c.id and i.org_id = ${orgId} ${mineI}
       where c.org_id = ${orgId} group by c.name
      union all
      select ${NO_CHANNEL}::text, count(*)::int from items where org_id = ${orgId} ${mine} and channel_id is null
      order by 1`,
  ]);
  const stats: StatsView = {
    total: 0,
    open: 0,
    answered: 0,
    dismissed: 0,
    archived: 0,
    by_level: Object.fromEntries(itemLevels.map((level) => [level, 0])),
    by_channel: Object.fromEntries(channels.map((row) => [row.name, row.count])),
  };
  for (const row of levels) {
    stats.total += row.total;
    stats.open += row.open;
    stats.answered += row.answered;
    stats.dismissed += row.dismissed;
    stats.archived += row.archived;
    stats.by_level[row.level] = row.total;
  }
  return stats;
}
