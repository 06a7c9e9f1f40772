import type { EmailSettingsView, UpdateEmailSettingsInput } from '@beckon/contracts/email/email.contract';
import type { Queryable } from '@beckon/db';
import type { Identity } from '../../auth/identity';
import { fenceCaches } from '../../caches/fence';
import type { Deps } from '../../deps';

type Stored = Omit<EmailSettingsView, 'available'>;
const DEFAULTS: Stored = { enabled: false, digest: 'off', digest_below: 'warning' };

async function stored(sql: Queryable, orgId: string, userId: string): Promise<Stored> {
  const [row] = await sql<Stored[]>`
    select enabled, digest, digest_below from email_settings where org_id = ${orgId} and user_id = ${userId}`;
  return row ?? DEFAULTS;
}

export async function getEmailSettings(deps: Deps, identity: Identity): Promise<EmailSettingsView> {
  return { ...(await stored(deps.sql, identity.orgId, identity.userId)), available: deps.mailer.configured };
}

/**
 * Changes the caller's email channel in the current organization. Turning mail on answers once
 * every resource process knows the organization has someone to mail (items created after the
 * answer mail them).
 */
export async function updateEmailSettings(
  deps: Deps,
  identity: Identity,
  input: UpdateEmailSettingsInput,
): Promise<EmailSettingsView> {
  const next = { ...(await stored(deps.sql, identity.orgId, identity.userId)), ...input };
  await deps.sql`
    insert into email_settings (user_id, org_id, enabled, digest, digest_below)
    values (${identity.userId}, ${identity.orgId}, ${next.enabled}, ${next.digest}, ${next.digest_below})
    on conflict (user_id, org_id) do update set
      enabled = excluded.enabled, digest = excluded.digest, digest_below = excluded.digest_below,
      updated_at = now()`;
  if (next.enabled) await fenceCaches(deps);
  return { ...next, available: deps.mailer.configured };
}

/** Turns a person's mail off in one organization (the unsubscribe link); true when it was on. */
export async function turnEmailOff(sql: Queryable, orgId: string, userId: string): Promise<boolean> {
  const changed = await sql`
    update email_settings set enabled = false, updated_at = now()
     where org_id = ${orgId} and user_id = ${userId} and enabled`;
  return changed.count > 0;
}
