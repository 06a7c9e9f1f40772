import type { CreateRoleInput, RoleView, UpdateRoleInput } from '@beckon/contracts/admin/roles.contract';
import type { Queryable } from '@beckon/db';
import { uuidv7 } from 'uuidv7';
import type { Identity } from '../../auth/identity';
import { fenceCaches } from '../../caches/fence';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';
import { requireHolding } from './members.service';

type RoleRow = Omit<RoleView, 'created_at'> & { created_at: Date };
const roleView = (row: RoleRow): RoleView => ({ ...row, created_at: row.created_at.toISOString() });

/** The roles an organization sees: the system ones, then its own, with its member counts. */
const SELECT_ROLES = `
  select r.id, r.org_id, r.name, r.description, r.is_system, r.permissions, r.created_at,
         (select count(*)::int from memberships m where m.role_id = r.id and m.org_id = $1) as members
    from roles r where (r.org_id is null or r.org_id = $1)`;

async function findRole(tx: Queryable, orgId: string, roleId: string, lock = false): Promise<RoleRow> {
  const [row] = await tx.unsafe<RoleRow[]>(`${SELECT_ROLES} and r.id = $2${lock ? ' for update of r' : ''}`, [
    orgId,
    roleId,
  ]);
  if (!row) throw AppError.notFound();
  return row;
}

/** A custom role of the organization; a system role is a 403 (they cannot be edited). */
async function customRole(tx: Queryable, orgId: string, roleId: string): Promise<RoleRow> {
  const role = await findRole(tx, orgId, roleId, true);
  if (role.is_system) throw AppError.forbidden('system_role', 'system roles cannot be edited');
  return role;
}

/** A name taken in the organization, or a system role's (which would read as that role): 409. */
async function checkName(tx: Queryable, orgId: string, name: string, except: string | null = null) {
  const [taken] = await tx`
    select 1 from roles where lower(name) = lower(${name}) and (org_id is null or org_id = ${orgId})
       and id is distinct from ${except}::uuid`;
  if (taken) throw AppError.conflict('name_taken', 'a role with this name already exists');
}

export async function listRoles(deps: Deps, identity: Identity): Promise<RoleView[]> {
  const rows = await deps.sql.unsafe<RoleRow[]>(
    `${SELECT_ROLES} order by r.is_system desc, array_position(array['owner', 'admin', 'member', 'viewer'], r.name), r.created_at, r.id`,
    [identity.orgId],
  );
  return rows.map(roleView);
}

export async function createRole(deps: Deps, identity: Identity, input: CreateRoleInput): Promise<RoleView> {
  requireHolding(identity, input.permissions);
  const orgId = identity.orgId;
  const row = await deps.sql.begin(async (tx) => {
    // One role creation or rename at a time per organization, so names stay unique case-insensitively.
    await tx`select pg_advisory_xact_lock(hashtextextended(${`roles:${orgId}`}, 0))`;
    await checkName(tx, orgId, input.name);
    const id = uuidv7();
    await tx`insert into roles (id, org_id, name, description, permissions)
             values (${id}, ${orgId}, ${input.name}, ${input.description}, ${input.permissions})`;
    await recordOrgChange(tx, identity, 'role.create', {
      role_id: id,
      name: input.name,
      permissions: input.permissions,
    });
    return findRole(tx, orgId, id);
  });
  return roleView(row);
}

/** Edits a custom role; its members have the new permissions on their next request. */
export async function updateRole(deps: Deps, identity: Identity, input: UpdateRoleInput): Promise<RoleView> {
  const orgId = identity.orgId;
  const row = await deps.sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtextextended(${`roles:${orgId}`}, 0))`;
    const role = await customRole(tx, orgId, input.role_id);
    requireHolding(identity, role.permissions);
    if (input.permissions) requireHolding(identity, input.permissions);
    if (input.name !== undefined) await checkName(tx, orgId, input.name, role.id);
    const set: Record<string, unknown> = {};
    if (input.name !== undefined) set.name = input.name;
    if (input.description !== undefined) set.description = input.description;
    if (input.permissions !== undefined) set.permissions = input.permissions;
    await tx`update roles set ${tx(set)} where id = ${role.id}`;
    await recordOrgChange(tx, identity, 'role.update', { role_id: role.id, ...set });
    return findRole(tx, orgId, role.id);
  });
  await fenceCaches(deps);
  return roleView(row);
}

/**
 * Deletes a custom role nobody holds and no open invitation offers (409 otherwise). Invitations
 * that can no longer be used (revoked, expired, used up) go with it.
 */
export async function deleteRole(deps: Deps, identity: Identity, roleId: string): Promise<RoleView> {
  const orgId = identity.orgId;
  const row = await deps.sql.begin(async (tx) => {
    const role = await customRole(tx, orgId, roleId);
    // The role row is locked now (a change-role or invitation giving it waits, or went first):
    // count its holders afresh.
    const [{ members }] = await tx<[{ members: number }]>`
      select count(*)::int as members from memberships where org_id = ${orgId} and role_id = ${role.id}`;
    if (members > 0) {
      throw AppError.conflict('role_in_use', 'the role has members: give them another role first', {
        members,
      });
    }
    const [open] = await tx`
      select 1 from invitations
       where org_id = ${orgId} and role_id = ${role.id} and revoked_at is null and expires_at > now() and use_count < max_uses`;
    if (open)
      throw AppError.conflict('role_in_use', 'the role is offered by an open invitation: revoke it first');
    await tx`delete from invitations where org_id = ${orgId} and role_id = ${role.id}`;
    await tx`delete from roles where id = ${role.id}`;
    await recordOrgChange(tx, identity, 'role.delete', { role_id: role.id, name: role.name });
    return role;
  });
  return roleView(row);
}
