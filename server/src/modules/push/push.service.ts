import type {
  DeviceView,
  PreferencesView,
  RegisterDeviceInput,
  UpdatePreferencesInput,
} from '@beckon/contracts/push/push.contract';
import { uuidv7 } from 'uuidv7';
import type { Identity } from '../../auth/identity';
import { fenceCaches } from '../../caches/fence';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';

type PreferencesRow = Omit<PreferencesView, 'muted_channels'> & { muted_channels: string[] };

const DEFAULTS: PreferencesRow = {
  quiet_hours_enabled: false,
  quiet_hours_start: '22:00',
  quiet_hours_end: '07:00',
  quiet_hours_allow_levels: 'error',
  timezone: 'UTC',
  muted_channels: [],
  muted_apps: [],
  min_level: 'info',
};

async function storedPreferences(deps: Deps, userId: string): Promise<PreferencesRow> {
  const [row] = await deps.sql<PreferencesRow[]>`
    select quiet_hours_enabled, quiet_hours_start, quiet_hours_end, quiet_hours_allow_levels, timezone,
           muted_channels, muted_apps, min_level
      from notification_preferences where user_id = ${userId}`;
  return row ?? DEFAULTS;
}

/** The ids among `ids` that are channels of the organization. */
async function channelsOf(deps: Deps, orgId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await deps.sql<{ id: string }[]>`
    select id from channels where org_id = ${orgId} and id = any(${ids}::uuid[])`;
  return new Set(rows.map((row) => row.id));
}

/** A person's preferences; their mutes are shown for the current organization only. */
export async function getPreferences(deps: Deps, identity: Identity): Promise<PreferencesView> {
  const stored = await storedPreferences(deps, identity.userId);
  const here = await channelsOf(deps, identity.orgId, stored.muted_channels);
  return { ...stored, muted_channels: stored.muted_channels.filter((id) => here.has(id)) };
}

/** Changes the given fields; `muted_channels` replaces this organization's mutes, others stay. */
export async function updatePreferences(
  deps: Deps,
  identity: Identity,
  input: UpdatePreferencesInput,
): Promise<PreferencesView> {
  const stored = await storedPreferences(deps, identity.userId);
  // The database reads the zone in every item creation: it must know it too.
  if (input.timezone !== undefined) {
    const [known] = await deps.sql`select 1 from pg_timezone_names where name = ${input.timezone}`;
    if (!known) throw AppError.invalid({ timezone: 'not an IANA time zone (Area/Location, or UTC)' });
  }
  let muted = stored.muted_channels;
  if (input.muted_channels) {
    const given = [...new Set(input.muted_channels)];
    const known = await channelsOf(deps, identity.orgId, given);
    const unknown = given.findIndex((id) => !known.has(id));
    if (unknown >= 0) throw AppError.invalid({ [`muted_channels.${unknown}`]: 'unknown channel' });
    const here = await channelsOf(deps, identity.orgId, stored.muted_channels);
    muted = [...stored.muted_channels.filter((id) => !here.has(id)), ...given];
  }
  const next = { ...stored, ...input, muted_channels: muted };
  await deps.sql`
    insert into notification_preferences
      (user_id, quiet_hours_enabled, quiet_hours_start, quiet_hours_end, quiet_hours_allow_levels, timezone,
       muted_channels, muted_apps, min_level)
    values (${identity.userId}, ${next.quiet_hours_enabled}, ${next.quiet_hours_start}, ${next.quiet_hours_end},
            ${next.quiet_hours_allow_levels}, ${next.timezone}, ${next.muted_channels}::uuid[],
            ${next.muted_apps}::text[], ${next.min_level})
    on conflict (user_id) do update set
      quiet_hours_enabled = excluded.quiet_hours_enabled, quiet_hours_start = excluded.quiet_hours_start,
      quiet_hours_end = excluded.quiet_hours_end, quiet_hours_allow_levels = excluded.quiet_hours_allow_levels,
      timezone = excluded.timezone, muted_channels = excluded.muted_channels, muted_apps = excluded.muted_apps,
      min_level = excluded.min_level,
      updated_at = now()`;
  return getPreferences(deps, identity);
}

type DeviceRow = Omit<DeviceView, 'created_at' | 'updated_at'> & { created_at: Date; updated_at: Date };
const deviceView = (row: DeviceRow): DeviceView => ({
  id: row.id,
  platform: row.platform,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

/**
 * Registers a device for the caller in the current organization, one row per organization: a
 * person in two organizations has the token registered in each. A known token of this
 * organization moves to the caller; the token's rows of anyone else, in other organizations, go
 * (the device changed hands). Answers once every resource process knows the organization has
 * devices (items created after the answer queue pushes for it).
 */
export async function registerDevice(
  deps: Deps,
  identity: Identity,
  input: RegisterDeviceInput,
): Promise<DeviceView> {
  const { userId, orgId } = identity;
  const token = input.device_token;
  // A device that changes hands does not get its previous owner's pending pushes.
  await deps.sql`
    delete from push_queue q using devices d
     where d.device_token = ${token} and q.org_id = d.org_id and q.device_id = d.id
       and q.delivered_at is null and d.user_id <> ${userId}`;
  await deps.sql`
    delete from devices where device_token = ${token} and user_id <> ${userId} and org_id <> ${orgId}`;
  const [row] = await deps.sql<DeviceRow[]>`
    insert into devices (id, user_id, org_id, device_token, platform)
    values (${uuidv7()}, ${userId}, ${orgId}, ${token}, ${input.platform})
    on conflict (org_id, device_token) do update set
      user_id = excluded.user_id, platform = excluded.platform, updated_at = now()
    returning id, platform, created_at, updated_at`;
  if (!row) throw AppError.internal();
  await fenceCaches(deps);
  return deviceView(row);
}

/** Removes the caller's device from every organization they registered it in. */
export async function unregisterDevice(deps: Deps, identity: Identity, token: string) {
  const removed = await deps.sql`
    delete from devices where device_token = ${token} and user_id = ${identity.userId} returning id`;
  return { unregistered: removed.length > 0 };
}

export async function listDevices(deps: Deps, identity: Identity): Promise<DeviceView[]> {
  const rows = await deps.sql<DeviceRow[]>`
    select id, platform, created_at, updated_at from devices
     where user_id = ${identity.userId} and org_id = ${identity.orgId} order by created_at, id`;
  return rows.map(deviceView);
}

/** What a client needs to subscribe; an adapter is enabled only when it can send. */
export function pushConfig(deps: Pick<Deps, 'env'>) {
  const { env } = deps;
  return {
    webpush: {
      enabled: Boolean(env.PUSH_VAPID_KEY && env.PUSH_VAPID_PRIVATE_KEY),
      vapid_public_key: env.PUSH_VAPID_KEY ?? null,
    },
    mobile: {
      enabled: Boolean(env.PUSH_SERVICE_ACCOUNT_JSON),
      api_key: env.PUSH_API_KEY ?? null,
      project_id: env.PUSH_PROJECT_ID ?? null,
      app_id: env.PUSH_APP_ID ?? null,
      messaging_sender_id: env.PUSH_MESSAGING_SENDER_ID ?? null,
    },
  };
}
