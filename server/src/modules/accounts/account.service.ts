import type {
  AccountView,
  CreateOrgInput,
  OrganizationView,
  SessionGrant,
} from '@beckon/contracts/accounts/account.contract';
import type { Identity } from '../../auth/identity';
import { sessionVerification } from '../../auth/verification';
import { fenceCaches } from '../../caches/fence';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordAudit, recordOrgChange } from '../audit/audit.service';
import { identityView } from '../identity/identity-view';
import { enabledProviders } from './external/providers';
import { createSession } from './sessions';
import { createOrganization } from './users';

export async function describeAccount(deps: Deps, identity: Identity): Promise<AccountView> {
  const [row] = await deps.sql<
    { user_id: string; email: string; name: string | null; org_id: string; org_name: string; slug: string }[]
  >`select u.id as user_id, u.email, u.name, o.id as org_id, o.name as org_name, o.slug
      from users u, organizations o where u.id = ${identity.userId} and o.id = ${identity.orgId}`;
  if (!row) throw AppError.notFound();
  return {
    ...identityView(identity),
    user: { id: row.user_id, email: row.email, name: row.name },
    org: { id: row.org_id, name: row.org_name, slug: row.slug },
  };
}

/** Revokes the session behind the request; it fails on the very next request. */
export async function logout(deps: Deps, identity: Identity) {
  await deps.sql.begin(async (tx) => {
    await tx`update sessions set revoked_at = ${deps.clock()}
              where id = ${identity.credentialId} and revoked_at is null`;
    await recordOrgChange(tx, identity, 'auth.logout', { session_id: identity.credentialId });
  });
  await fenceCaches(deps);
  return { message: 'signed out' };
}

type OrgRow = Omit<OrganizationView, 'created_at'> & { created_at: Date };
const orgView = (row: OrgRow): OrganizationView => ({ ...row, created_at: row.created_at.toISOString() });

export async function listOrganizations(deps: Deps, identity: Identity): Promise<OrganizationView[]> {
  const rows = await deps.sql<OrgRow[]>`
    select o.id, o.name, o.slug, o.metadata, o.is_personal, r.name as role, o.created_at
      from memberships m join organizations o on o.id = m.org_id join roles r on r.id = m.role_id
     where m.user_id = ${identity.userId}
     order by o.is_personal desc, o.name, o.id`;
  return rows.map(orgView);
}

export async function createOrg(
  deps: Deps,
  identity: Identity,
  input: CreateOrgInput,
): Promise<OrganizationView> {
  const row = await deps.sql.begin(async (tx) => {
    const { id } = await createOrganization(tx, { ...input, personal: false, ownerId: identity.userId });
    await recordAudit(tx, {
      orgId: id,
      action: 'org.create',
      actor: { type: 'user', id: identity.userId },
      data: { name: input.name },
    });
    const [created] = await tx<OrgRow[]>`
      select id, name, slug, metadata, is_personal, 'owner' as role, created_at
        from organizations where id = ${id}`;
    return created as OrgRow;
  });
  return orgView(row);
}

/** A new 30-day session in another organization of the user; unknown or foreign is a 404. */
/**
 * A new session in another organization of the person. To the organization of the calling
 * session it answers that session (`token`: the caller's own): switching never mints a session
 * that changes nothing, so sessions cannot be multiplied by asking again.
 */
export async function switchOrg(
  deps: Deps,
  identity: Identity,
  orgId: string,
  token: string | null,
): Promise<SessionGrant> {
  const now = deps.clock();
  if (orgId === identity.orgId && token) {
    const [current] = await deps.sql<{ expires_at: Date }[]>`
      select expires_at from sessions where id = ${identity.credentialId} and revoked_at is null`;
    if (current) {
      return {
        token,
        user_id: identity.userId,
        org_id: orgId,
        expires_at: current.expires_at.toISOString(),
      };
    }
  }
  return deps.sql.begin(async (tx) => {
    const member =
      await tx`select 1 from memberships where org_id = ${orgId} and user_id = ${identity.userId}`;
    if (member.length === 0) throw AppError.notFound();
    // The new session is as fresh as the sign-in it comes from, not a verification of its own.
    const verified = (await sessionVerification(tx, identity)) ?? { method: 'switch_org', at: new Date(0) };
    const grant = await createSession(tx, {
      userId: identity.userId,
      orgId,
      origin: 'switch_org',
      now,
      verified,
    });
    await recordAudit(tx, {
      orgId,
      action: 'auth.switch_org',
      actor: { type: 'user', id: identity.userId },
      data: { from_org_id: identity.orgId },
    });
    return grant;
  });
}

export const signInOptions = (deps: Deps) => ({
  providers: [...enabledProviders(deps.env, deps.clock).keys()],
  magic_link: { mail: deps.mailer.configured },
  dev_login: deps.env.DEV_LOGIN_ENABLED,
});
