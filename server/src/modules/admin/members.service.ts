import type {
  AdminOrgView,
  MemberView,
  UpdateOrgInput,
  UsageView,
} from '@beckon/contracts/admin/members.contract';
import { missingToGrant } from '@beckon/contracts/permissions';
import type { Queryable } from '@beckon/db';
import type { Identity } from '../../auth/identity';
import { fenceCaches } from '../../caches/fence';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { claimSlug } from '../accounts/users';
import { recordOrgChange } from '../audit/audit.service';

type MemberRow = {
  user_id: string;
  email: string;
  name: string | null;
  role_id: string;
  role_name: string;
  role_is_system: boolean;
  permissions: string[];
  joined_at: Date;
};

const SELECT_MEMBER = `
  select m.user_id, u.email, u.name, r.id as role_id, r.name as role_name, r.is_system as role_is_system,
         r.permissions, m.created_at as joined_at
    from memberships m join users u on u.id = m.user_id join roles r on r.id = m.role_id`;

const memberView = (row: MemberRow): MemberView => ({
  user_id: row.user_id,
  email: row.email,
  name: row.name,
  role: { id: row.role_id, name: row.role_name, is_system: row.role_is_system },
  joined_at: row.joined_at.toISOString(),
});

const isOwner = (role: { is_system: boolean; name: string }) => role.is_system && role.name === 'owner';

async function findMember(tx: Queryable, orgId: string, userId: string): Promise<MemberRow> {
  const [row] = await tx.unsafe<MemberRow[]>(`${SELECT_MEMBER} where m.org_id = $1 and m.user_id = $2`, [
    orgId,
    userId,
  ]);
  if (!row) throw AppError.notFound();
  return row;
}

/**
 * The escalation guard of decisions.md §7, for acting on roles and members: the caller must hold
 * every permission of the role (wildcards expanded over the catalog), else 403 naming one.
 */
export function requireHolding(identity: Identity, permissions: readonly string[]): void {
  const missing = missingToGrant(identity.permissions, permissions);
  if (missing) throw AppError.permissionDenied(missing);
}

/**
 * Member changes of one organization run one after the other (the organization's row is their
 * lock), so two concurrent demotions can never leave it without an Owner. NO KEY: rows that
 * merely reference the organization (items, audit entries) are not held up.
 */
async function lockOrganization(tx: Queryable, orgId: string): Promise<void> {
  await tx`select 1 from organizations where id = ${orgId} for no key update`;
}

/**
 * A role the organization may give, locked against a concurrent edit or deletion until the
 * change commits: the escalation guard then checks the permissions that are given.
 */
export async function lockGivenRole(tx: Queryable, orgId: string, roleId: string) {
  const [role] = await tx<{ id: string; name: string; is_system: boolean; permissions: string[] }[]>`
    select id, name, is_system, permissions from roles
     where id = ${roleId} and (org_id is null or org_id = ${orgId}) for share`;
  if (!role) throw AppError.invalid({ role_id: 'no such role in this organization' });
  return role;
}

async function isLastOwner(tx: Queryable, orgId: string, member: MemberRow): Promise<boolean> {
  if (!isOwner({ is_system: member.role_is_system, name: member.role_name })) return false;
  const [others] = await tx<{ n: number }[]>`
    select count(*)::int as n from memberships m join roles r on r.id = m.role_id
     where m.org_id = ${orgId} and m.user_id <> ${member.user_id} and r.org_id is null and r.name = 'owner'`;
  return (others?.n ?? 0) === 0;
}

export async function listMembers(deps: Deps, identity: Identity): Promise<MemberView[]> {
  const rows = await deps.sql.unsafe<MemberRow[]>(
    `${SELECT_MEMBER} where m.org_id = $1 order by m.created_at, m.user_id`,
    [identity.orgId],
  );
  return rows.map(memberView);
}

/**
 * Gives a member another role of the organization (or a system role). The caller must hold the
 * permissions of the member's current role and of the new one; the only Owner keeps the role.
 * Answers once every resource process applies it (fenceCaches).
 */
export async function changeMemberRole(
  deps: Deps,
  identity: Identity,
  input: { user_id: string; role_id: string },
): Promise<MemberView> {
  const orgId = identity.orgId;
  const row = await deps.sql.begin(async (tx) => {
    await lockOrganization(tx, orgId);
    const member = await findMember(tx, orgId, input.user_id);
    const role = await lockGivenRole(tx, orgId, input.role_id);
    requireHolding(identity, member.permissions);
    requireHolding(identity, role.permissions);
    if (!isOwner(role) && (await isLastOwner(tx, orgId, member))) {
      throw AppError.conflict(
        'last_owner',
        'the organization must keep an Owner: make another member Owner first',
      );
    }
    await tx`update memberships set role_id = ${role.id}, updated_at = now()
              where org_id = ${orgId} and user_id = ${member.user_id}`;
    await recordOrgChange(tx, identity, 'member.change_role', {
      user_id: member.user_id,
      from_role_id: member.role_id,
      to_role_id: role.id,
    });
    return findMember(tx, orgId, member.user_id);
  });
  await fenceCaches(deps);
  return memberView(row);
}

/**
 * Removes a member: the membership, their sessions in this organization and their API keys (so
 * a later invitation starts clean), and their team memberships. The caller must hold the
 * member's permissions; the only Owner cannot be removed.
 */
export async function removeMember(deps: Deps, identity: Identity, userId: string) {
  const orgId = identity.orgId;
  const now = deps.clock();
  await deps.sql.begin(async (tx) => {
    await lockOrganization(tx, orgId);
    const member = await findMember(tx, orgId, userId);
    requireHolding(identity, member.permissions);
    if (await isLastOwner(tx, orgId, member)) {
      throw AppError.conflict(
        'last_owner',
        'the organization must keep an Owner: make another member Owner first',
      );
    }
    await tx`delete from memberships where org_id = ${orgId} and user_id = ${userId}`;
    await tx`update sessions set revoked_at = ${now}
              where org_id = ${orgId} and user_id = ${userId} and revoked_at is null`;
    await tx`update api_keys set revoked_at = ${now}
              where org_id = ${orgId} and user_id = ${userId} and revoked_at is null`;
    await tx`delete from team_members where org_id = ${orgId} and user_id = ${userId}`;
    await recordOrgChange(tx, identity, 'member.deactivate', { user_id: userId, role_id: member.role_id });
  });
  await fenceCaches(deps);
  return { user_id: userId, removed_at: now.toISOString() };
}

type OrgRow = Omit<AdminOrgView, 'created_at'> & { created_at: Date };
const orgView = (row: OrgRow): AdminOrgView => ({ ...row, created_at: row.created_at.toISOString() });
const ORG_COLUMNS = 'id, name, slug, metadata, is_personal, callback_secret, created_at';

export async function getOrganization(deps: Deps, identity: Identity): Promise<AdminOrgView> {
  const [row] = await deps.sql.unsafe<OrgRow[]>(`select ${ORG_COLUMNS} from organizations where id = $1`, [
    identity.orgId,
  ]);
  if (!row) throw AppError.notFound();
  return orgView(row);
}

export async function updateOrganization(
  deps: Deps,
  identity: Identity,
  input: UpdateOrgInput,
): Promise<AdminOrgView> {
  const set: Record<string, unknown> = {};
  if (input.name !== undefined) set.name = input.name;
  if (input.slug !== undefined) set.slug = input.slug;
  if (input.metadata !== undefined) set.metadata = deps.sql.json(input.metadata as never);
  const row = await deps.sql.begin(async (tx) => {
    if (input.slug !== undefined) await renameSlug(tx, identity.orgId, input.slug);
    const [updated] = await tx<OrgRow[]>`
      update organizations set ${tx(set)}, updated_at = now() where id = ${identity.orgId}
      returning ${tx.unsafe(ORG_COLUMNS)}`;
    await recordOrgChange(tx, identity, 'org.update', { fields: Object.keys(set) });
    return updated;
  });
  if (!row) throw AppError.notFound();
  return orgView(row);
}

/** Moves the organization to `slug` (409 when another holds it) and frees its old one. */
async function renameSlug(tx: Queryable, orgId: string, slug: string) {
  if (!(await claimSlug(tx, slug, orgId))) throw AppError.conflict('name_taken', 'slug already taken');
  await tx`delete from organization_slugs where org_id = ${orgId} and slug <> ${slug}`;
}

type UsageRow = {
  code: string;
  name: string;
  audit_retention_days: number;
  status: string;
  current_period_end: Date | null;
  cancel_at_period_end: boolean;
  max_seats: number | null;
  max_teams: number | null;
  monthly_notifications: number | null;
  webhooks: number | null;
  agents: number | null;
  seats_used: number;
  teams_used: number;
  webhooks_used: number;
  agents_used: number;
  notifications_used: number;
};

/** The plan, the subscription and every limit with its current usage (a null limit: unlimited). */
export async function getUsage(deps: Deps, identity: Identity): Promise<UsageView> {
  const month = deps.clock().toISOString().slice(0, 7);
  const orgId = identity.orgId;
  const [row] = await deps.sql<UsageRow[]>`
    select p.code, p.name, p.audit_retention_days, s.status, s.current_period_end, s.cancel_at_period_end,
           p.max_seats, p.max_teams, p.monthly_notifications, p.webhooks, p.agents,
           (select count(*)::int from memberships where org_id = ${orgId}) as seats_used,
           (select count(*)::int from teams where org_id = ${orgId}) as teams_used,
           (select count(*)::int from webhooks where org_id = ${orgId}) as webhooks_used,
           (select count(*)::int from agents where org_id = ${orgId}) as agents_used,
           coalesce((select notifications from monthly_usage
                      where org_id = ${orgId} and month = ${`${month}-01`}::date), 0) as notifications_used
      from subscriptions s join plans p on p.id = s.plan_id
     where s.org_id = ${orgId}`;
  if (!row) throw AppError.notFound();
  return {
    plan: { code: row.code, name: row.name, audit_retention_days: row.audit_retention_days },
    subscription: {
      status: row.status,
      current_period_end: row.current_period_end?.toISOString() ?? null,
      cancel_at_period_end: row.cancel_at_period_end,
    },
    month,
    limits: {
      max_seats: { limit: row.max_seats, current: row.seats_used },
      max_teams: { limit: row.max_teams, current: row.teams_used },
      // An unlimited quota is never counted (migration 0004).
      monthly_notifications: {
        limit: row.monthly_notifications,
        current: row.monthly_notifications === null ? null : row.notifications_used,
      },
      webhooks: { limit: row.webhooks, current: row.webhooks_used },
      agents: { limit: row.agents, current: row.agents_used },
    },
  };
}
