import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';

/**
 * A chat app's routes table (Telegram, Discord, Teams): which Beckon channel posts to which chat,
 * by the columns of the chat's id (`target`) and name; `app` names its audit actions.
 */
export type RouteTable = { app: string; table: string; target: string; name: string };

/** A route as stored, with its Beckon channel's name; the view shows `created_at` as ISO text. */
type RouteRow = Record<string, unknown> & { created_at: Date };
const routeView = <View>(row: RouteRow) => ({ ...row, created_at: row.created_at.toISOString() }) as View;

/** The organization's routes, by channel name. */
export async function listRoutesOf<View>(deps: Deps, identity: Identity, t: RouteTable): Promise<View[]> {
  const rows = await deps.sql<RouteRow[]>`
    select r.channel_id, c.name as channel, r.${deps.sql(t.target)}, r.${deps.sql(t.name)}, r.created_at
      from ${deps.sql(t.table)} r join channels c on c.org_id = r.org_id and c.id = r.channel_id
     where r.org_id = ${identity.orgId} order by c.name`;
  return rows.map(routeView<View>);
}

/** The name of a channel of the organization (404 for any other id). */
export async function channelName(deps: Deps, identity: Identity, channelId: string): Promise<string> {
  const [channel] = await deps.sql<{ name: string }[]>`
    select name from channels where id = ${channelId} and org_id = ${identity.orgId}`;
  if (!channel) throw AppError.notFound();
  return channel.name;
}

/** Creates or replaces a channel's route to a chat the app checked, with its audit entry. */
export async function saveRoute<View>(
  deps: Deps,
  identity: Identity,
  t: RouteTable,
  channel: { id: string; name: string },
  chat: { id: string; name: string },
): Promise<View> {
  const sql = deps.sql;
  const row = await sql.begin(async (tx) => {
    const [saved] = await tx<RouteRow[]>`
      insert into ${tx(t.table)} (org_id, channel_id, ${tx(t.target)}, ${tx(t.name)})
      values (${identity.orgId}, ${channel.id}, ${chat.id}, ${chat.name})
      on conflict (org_id, channel_id) do update
        set ${tx(t.target)} = excluded.${tx(t.target)}, ${tx(t.name)} = excluded.${tx(t.name)}
      returning channel_id, ${channel.name}::text as channel, ${tx(t.target)}, ${tx(t.name)}, created_at`;
    await recordOrgChange(tx, identity, `${t.app}.route`, { channel_id: channel.id, [t.target]: chat.id });
    return saved as RouteRow;
  });
  return routeView<View>(row);
}

/** Removes a channel's route (404 when it has none), with its audit entry. */
export async function removeRoute<View>(
  deps: Deps,
  identity: Identity,
  t: RouteTable,
  channelId: string,
): Promise<View> {
  const row = await deps.sql.begin(async (tx) => {
    const [gone] = await tx<RouteRow[]>`
      delete from ${tx(t.table)} r using channels c
       where r.org_id = ${identity.orgId} and r.channel_id = ${channelId} and c.org_id = r.org_id and c.id = r.channel_id
      returning r.channel_id, c.name as channel, r.${tx(t.target)}, r.${tx(t.name)}, r.created_at`;
    if (!gone) throw AppError.notFound();
    await recordOrgChange(tx, identity, `${t.app}.unroute`, { channel_id: channelId });
    return gone;
  });
  return routeView<View>(row);
}
