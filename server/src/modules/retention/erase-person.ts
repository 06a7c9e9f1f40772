import type { Queryable } from '@beckon/db';
import { type Actor, actorOf, type Identity } from '../../auth/identity';
import { fenceCaches } from '../../caches/fence';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { requireHolding } from '../admin/members.service';
import { recordAudit } from '../audit/audit.service';
import { closeOrganization } from './org-deletion';

/** The name an erased person goes by: their answers and comments stay, under it. */
export const ERASED_NAME = 'Erased person';
const pseudonymEmail = (userId: string) => `erased-${userId}@erased.invalid`;

type Reference = { table: string; column: string; action: 'c' | 'n' | 'a' | 'r' | 'd' };

/**
 * Every foreign key to users, read from the catalog: erasure does to the rows that refer to the
 * person what deleting them would (delete, or set null), while their row stays as the pseudonym
 * their answers point to. A table added later is covered without a change here.
 */
const referencesToUsers = (tx: Queryable) => tx<Reference[]>`
  select t.relname as table, a.attname as column, c.confdeltype as action
    from pg_constraint c
    join pg_class t on t.oid = c.conrelid
    join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
   where c.contype = 'f' and c.confrelid = 'users'::regclass and t.relname <> 'users'`;

/** Organizations the person is the only Owner of (a personal workspace aside). */
const soleOwnerships = (tx: Queryable, userId: string) => tx<{ org_id: string }[]>`
  select m.org_id from memberships m
    join roles r on r.id = m.role_id and r.org_id is null and r.name = 'owner'
    join organizations o on o.id = m.org_id and not o.is_personal
   where m.user_id = ${userId}
     and not exists (select 1 from memberships m2 join roles r2 on r2.id = m2.role_id
                      where m2.org_id = m.org_id and m2.user_id <> ${userId}
                        and r2.org_id is null and r2.name = 'owner')`;

/**
 * Erases a person, in the caller's transaction: their personal workspace closed (its data goes
 * with the delete_organization job), every row that refers to them removed as a deletion would,
 * sign-in links and invitations sent to their address removed, their name in recent stream
 * events replaced, and their email and name replaced by a pseudonym. Audit entries are not
 * touched (their hashes cover them): they name people by id only, and the id now leads to the
 * pseudonym. Each organization they belonged to records `person.erase`.
 */
export async function erasePerson(tx: Queryable, userId: string, by: Actor, now: Date): Promise<Date> {
  const [person] = await tx<{ email: string; erased_at: Date | null }[]>`
    select email, erased_at from users where id = ${userId} for update`;
  if (!person) throw AppError.notFound();
  if (person.erased_at) return person.erased_at;
  if ((await soleOwnerships(tx, userId)).length > 0) {
    throw AppError.conflict(
      'last_owner',
      'the person is the only Owner of an organization: make another member Owner or delete it first',
    );
  }
  const orgs = await tx<{ org_id: string; is_personal: boolean }[]>`
    select m.org_id, o.is_personal from memberships m join organizations o on o.id = m.org_id
     where m.user_id = ${userId}`;
  for (const org of orgs) {
    if (org.is_personal) await closeOrganization(tx, org.org_id, now);
    else
      await recordAudit(tx, {
        orgId: org.org_id,
        action: 'person.erase',
        actor: by,
        data: { user_id: userId },
      });
  }
  for (const ref of await referencesToUsers(tx)) {
    if (ref.action === 'c') await tx`delete from ${tx(ref.table)} where ${tx(ref.column)} = ${userId}`;
    else await tx`update ${tx(ref.table)} set ${tx(ref.column)} = null where ${tx(ref.column)} = ${userId}`;
  }
  await tx`delete from magic_link_tokens where lower(email) = lower(${person.email})`;
  await tx`delete from invitations where lower(email) = lower(${person.email})`;
  await tx`update events set data = jsonb_set(data, array['item', 'names', ${userId}::text], ${tx.json(ERASED_NAME)})
            where data->'item'->'names' ? ${userId}::text`;
  await tx`update users set email = ${pseudonymEmail(userId)}, name = ${ERASED_NAME}, erased_at = ${now}
            where id = ${userId}`;
  return now;
}

const erasureOf = (userId: string, erasedAt: Date) => ({
  user_id: userId,
  erased_at: erasedAt.toISOString(),
});

/** POST /api/me/erase: the signed-in person, who repeats their email address. */
export async function eraseMe(deps: Deps, identity: Identity, input: { confirm: string }) {
  const erasedAt = await deps.sql.begin(async (tx) => {
    const [me] = await tx<{ email: string }[]>`select email from users where id = ${identity.userId}`;
    if (me?.email.toLowerCase() !== input.confirm.trim().toLowerCase()) {
      throw AppError.validationFailedWith('confirmation_mismatch', 'confirm must repeat your email address');
    }
    return erasePerson(tx, identity.userId, actorOf(identity), deps.clock());
  });
  await fenceCaches(deps);
  return erasureOf(identity.userId, erasedAt);
}

/**
 * POST /api/admin/users/:user_id/erase (users.remove): a member of this organization
 * who belongs to no other (their personal workspace aside): a person in several organizations
 * is not one organization's to erase.
 */
export async function eraseMember(deps: Deps, identity: Identity, userId: string) {
  const erasedAt = await deps.sql.begin(async (tx) => {
    const rows = await tx<{ org_id: string; is_personal: boolean; permissions: string[] }[]>`
      select m.org_id, o.is_personal, r.permissions
        from memberships m join organizations o on o.id = m.org_id join roles r on r.id = m.role_id
       where m.user_id = ${userId}`;
    const here = rows.find((row) => row.org_id === identity.orgId);
    if (!here) throw AppError.notFound();
    requireHolding(identity, here.permissions);
    if (rows.some((row) => row.org_id !== identity.orgId && !row.is_personal)) {
      throw AppError.conflict('member_elsewhere', 'the person also belongs to another organization');
    }
    return erasePerson(tx, userId, actorOf(identity), deps.clock());
  });
  await fenceCaches(deps);
  return erasureOf(userId, erasedAt);
}
