import { randomBytes } from 'node:crypto';
import type { Queryable } from '@beckon/db';
import { uuidv7 } from 'uuidv7';
import { AppError } from '../../errors';

/** Emails are compared without case (users_email_key is on lower(email)). */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** A slug from any name: lowercase ASCII words joined by dashes. */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
  return slug || 'org';
}

const suffix = () => randomBytes(3).toString('hex');

/**
 * Creates an organization with `ownerId` as its Owner (the subscription on Free comes from a
 * trigger). With no slug given, one is derived from the name and made unique with a suffix; a
 * slug given explicitly that is taken is a 409.
 */
export async function createOrganization(
  tx: Queryable,
  org: {
    name: string;
    slug?: string;
    metadata?: Record<string, unknown>;
    personal: boolean;
    ownerId: string;
  },
): Promise<{ id: string; slug: string }> {
  const id = uuidv7();
  // The slug is claimed in organization_slugs (unique across organizations), then used.
  let slug = org.slug ?? slugify(org.name);
  for (let attempt = 0; !(await claimSlug(tx, slug, id)); attempt++) {
    if (org.slug || attempt >= 5) throw AppError.conflict('name_taken', 'slug already taken');
    slug = `${slugify(org.name).slice(0, 40)}-${suffix()}`;
  }
  await tx`insert into organizations (id, name, slug, metadata, is_personal)
           values (${id}, ${org.name}, ${slug}, ${tx.json((org.metadata ?? {}) as never)}, ${org.personal})`;
  await tx`insert into memberships (id, org_id, user_id, role_id)
           select ${uuidv7()}, ${id}, ${org.ownerId}, r.id from roles r
            where r.org_id is null and r.name = 'owner'`;
  return { id, slug };
}

/**
 * Claims `slug` for the organization in organization_slugs, the table that keeps slugs unique
 * across organizations (a table of the coordinator once organizations are distributed): true
 * when it is the organization's, already or now; false when another organization holds it.
 */
export async function claimSlug(tx: Queryable, slug: string, orgId: string): Promise<boolean> {
  const claimed = await tx`
    insert into organization_slugs (slug, org_id) values (${slug}, ${orgId})
    on conflict (slug) do update set org_id = excluded.org_id
     where organization_slugs.org_id = excluded.org_id
    returning slug`;
  return claimed.length > 0;
}

export type SignedInUser = { id: string; email: string; personalOrgId: string; created: boolean };

/**
 * The user with this email, created on first sign-in with a personal workspace (Free plan,
 * pinned by the database). Safe when two first sign-ins race: the loser waits for the
 * winner's row and reuses it.
 */
export async function findOrCreateUser(
  tx: Queryable,
  email: string,
  name: string | null = null,
): Promise<SignedInUser> {
  const address = normalizeEmail(email);
  const [created] = await tx<{ id: string }[]>`
    insert into users (id, email, name) values (${uuidv7()}, ${address}, ${name})
    on conflict ((lower(email))) do nothing returning id`;
  const [user] = created
    ? [created]
    : await tx<{ id: string }[]>`select id from users where lower(email) = ${address}`;
  if (!user) throw new Error('user vanished during sign-in');
  const personalOrgId = await personalWorkspace(tx, user.id, address);
  return { id: user.id, email: address, personalOrgId, created: Boolean(created) };
}

/** The user's personal workspace, created if the user has none yet. */
export async function personalWorkspace(tx: Queryable, userId: string, email: string): Promise<string> {
  const [existing] = await tx<{ id: string }[]>`
    select o.id from organizations o join memberships m on m.org_id = o.id
     where m.user_id = ${userId} and o.is_personal order by o.created_at limit 1`;
  if (existing) return existing.id;
  const local = email.split('@')[0] ?? 'personal';
  const { id } = await createOrganization(tx, {
    name: `${local}'s workspace`,
    personal: true,
    ownerId: userId,
  });
  return id;
}
