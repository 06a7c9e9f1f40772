import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  unique,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, id, orgRowId, timestamps, ts } from './columns';

export const organizations = pgTable('organizations', {
  id: id(),
  name: text('name').notNull(),
  /** Unique across organizations through organization_slugs, a table of the coordinator. */
  slug: text('slug').notNull(),
  metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
  isPersonal: boolean('is_personal').notNull().default(false),
  /**
   * Set when an Owner asks for the organization's deletion: from then on no credential reaches
   * it, and the delete_organization job removes its data in batches (modules/retention).
   */
  deletionRequestedAt: ts('deletion_requested_at'),
  /** Signs callbacks to items' callback_url; shown to org.manage holders. */
  callbackSecret: text('callback_secret')
    .notNull()
    .$defaultFn(() => randomBytes(32).toString('hex'))
    // gen_random_uuid() draws from the strong generator: two of them give 244 random bits.
    .default(sql`replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '')`),
  ...timestamps(),
});

/**
 * Which organization holds each slug: what keeps slugs unique across organizations, and finds one
 * by its slug, on the coordinator of a distributed database (db/src/distribution.ts). Written in
 * the transaction that creates or renames the organization (accounts/users.ts,
 * admin/members.service.ts), deleted with it (retention/org-deletion.ts); no foreign key, as
 * organizations is distributed.
 */
export const organizationSlugs = pgTable('organization_slugs', {
  slug: text('slug').primaryKey(),
  orgId: uuid('org_id').notNull(),
});

export const users = pgTable(
  'users',
  {
    id: id(),
    email: text('email').notNull(),
    name: text('name'),
    /** Set by erasure: email and name are then a pseudonym (modules/retention/erase-person.ts). */
    erasedAt: ts('erased_at'),
    ...timestamps(),
  },
  (t) => [uniqueIndex('users_email_key').on(sql`lower(${t.email})`)],
);

/** A login through an external identity provider, linked to one user. */
export const identityLinks = pgTable(
  'identity_links',
  {
    id: id(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    providerUserId: text('provider_user_id').notNull(),
    email: text('email'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('identity_links_provider_key').on(t.provider, t.providerUserId),
    index('identity_links_user_idx').on(t.userId),
  ],
);

export const roles = pgTable(
  'roles',
  {
    id: id(),
    /**
     * Null for a system role. No foreign key: roles is a reference table and organizations a
     * distributed one; an organization's roles are deleted with it (retention/org-deletion.ts).
     */
    orgId: uuid('org_id'),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    isSystem: boolean('is_system').notNull().default(false),
    permissions: text('permissions').array().notNull().default([]),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('roles_org_name_key').on(t.orgId, t.name).where(sql`${t.orgId} is not null`),
    uniqueIndex('roles_system_name_key').on(t.name).where(sql`${t.orgId} is null`),
    check('roles_system_has_no_org', sql`${t.isSystem} = (${t.orgId} is null)`),
  ],
);

export const memberships = pgTable(
  'memberships',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    roleId: uuid('role_id')
      .notNull()
      .references(() => roles.id),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ name: 'memberships_pkey', columns: [t.orgId, t.id] }),
    uniqueIndex('memberships_org_user_key').on(t.orgId, t.userId),
    index('memberships_user_idx').on(t.userId),
    index('memberships_role_idx').on(t.roleId),
  ],
);

export const teams = pgTable(
  'teams',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ name: 'teams_pkey', columns: [t.orgId, t.id] }),
    uniqueIndex('teams_org_slug_key').on(t.orgId, t.slug),
  ],
);

/** The members of a team; `org_id` is its team's, so both live on the same node. */
export const teamMembers = pgTable(
  'team_members',
  {
    orgId: uuid('org_id').notNull(),
    teamId: uuid('team_id').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'team_members_pkey', columns: [t.orgId, t.teamId, t.userId] }),
    foreignKey({
      name: 'team_members_team_fk',
      columns: [t.orgId, t.teamId],
      foreignColumns: [teams.orgId, teams.id],
    }).onDelete('cascade'),
    index('team_members_user_idx').on(t.orgId, t.userId),
  ],
);

export const invitations = pgTable(
  'invitations',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    roleId: uuid('role_id')
      .notNull()
      .references(() => roles.id),
    kind: text('kind', { enum: ['email', 'link'] }).notNull(),
    /** Bound address for email invitations; null for link invitations. */
    email: text('email'),
    /** Found by the organization its code names and this hash (invitations.service.ts). */
    codeHash: text('code_hash').notNull(),
    maxUses: integer('max_uses').notNull().default(1),
    useCount: integer('use_count').notNull().default(0),
    expiresAt: ts('expires_at').notNull(),
    revokedAt: ts('revoked_at'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'invitations_pkey', columns: [t.orgId, t.id] }),
    unique('invitations_org_code_hash_unique').on(t.orgId, t.codeHash),
    index('invitations_org_idx').on(t.orgId, t.createdAt),
    check('invitations_email_kind', sql`(${t.kind} = 'email') = (${t.email} is not null)`),
    check('invitations_uses', sql`${t.useCount} >= 0 and ${t.useCount} <= ${t.maxUses}`),
  ],
);
