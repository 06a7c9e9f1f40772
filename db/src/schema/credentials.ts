import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  foreignKey,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  unique,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, id, orgRowId, ts } from './columns';
import { organizations, users } from './orgs';

/** Every token below is stored only as the hex SHA-256 of its value. */
export const sessions = pgTable(
  'sessions',
  {
    id: id(),
    tokenHash: text('token_hash').notNull().unique(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /**
     * The organization selected. No foreign key (sessions stay on the coordinator, organizations
     * are distributed): readers join memberships, and the organization's deletion deletes its
     * sessions (retention/org-deletion.ts).
     */
    orgId: uuid('org_id').notNull(),
    /** How the session was minted: login, magic_link, invitation, switch_org, idp. */
    origin: text('origin').notNull(),
    createdAt: createdAt(),
    expiresAt: ts('expires_at').notNull(),
    revokedAt: ts('revoked_at'),
    /**
     * The person's last proof of presence on this session when later than its creation: a passkey
     * asked for before a risky answer (step-up). Null: the sign-in itself (created_at, origin).
     */
    verifiedAt: ts('verified_at'),
    verifiedMethod: text('verified_method'),
  },
  (t) => [index('sessions_user_idx').on(t.userId), index('sessions_expires_idx').on(t.expiresAt)],
);

export const agents = pgTable(
  'agents',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'agents_pkey', columns: [t.orgId, t.id] }),
    index('agents_org_idx').on(t.orgId, t.createdAt),
  ],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    id: orgRowId(),
    tokenHash: text('token_hash').notNull(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    agentId: uuid('agent_id').notNull(),
    /** The owner: the key acts with this user's role (intersected with the agent permissions). */
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    label: text('label').notNull().default(''),
    /** `own`: the key reaches only the items its own agent created (organization-wide by default). */
    itemAccess: text('item_access', { enum: ['organization', 'own'] })
      .notNull()
      .default('organization'),
    createdAt: createdAt(),
    expiresAt: ts('expires_at'),
    revokedAt: ts('revoked_at'),
    lastUsedAt: ts('last_used_at'),
  },
  (t) => [
    primaryKey({ name: 'api_keys_pkey', columns: [t.orgId, t.id] }),
    // Found by the organization its key names and the key's hash (auth/tokens.ts, orgOfToken).
    unique('api_keys_org_token_hash_unique').on(t.orgId, t.tokenHash),
    foreignKey({
      name: 'api_keys_agent_fk',
      columns: [t.orgId, t.agentId],
      foreignColumns: [agents.orgId, agents.id],
    }).onDelete('cascade'),
    index('api_keys_user_idx').on(t.userId, t.createdAt),
    index('api_keys_agent_idx').on(t.agentId),
  ],
);

/**
 * The organization of each API key, inbound webhook token and invitation code made before they
 * named it (migrations 0039, 0041): the small lookup that lets those keep working once they are
 * found by organization. It stays on the coordinator of a distributed database
 * (db/src/distribution.ts); new tokens never need it.
 */
export const legacyCredentials = pgTable('legacy_credentials', {
  tokenHash: text('token_hash').primaryKey(),
  orgId: uuid('org_id').notNull(),
});

export const magicLinkTokens = pgTable(
  'magic_link_tokens',
  {
    id: id(),
    tokenHash: text('token_hash').notNull().unique(),
    email: text('email').notNull(),
    /** The organization asked for; no foreign key, deleted with it (retention/org-deletion.ts). */
    orgId: uuid('org_id'),
    createdAt: createdAt(),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
  },
  (t) => [
    index('magic_link_tokens_expires_idx').on(t.expiresAt),
    index('magic_link_tokens_email_idx').on(t.email, t.createdAt),
  ],
);

/**
 * Storage of the OAuth authorization server (clients, grants, codes, access and refresh tokens,
 * interactions). `id_hash` is the SHA-256 of the record id, because opaque token ids are the
 * tokens themselves. Token rows also carry user, org and client so the resource process
 * resolves an access token with one indexed lookup.
 */
export const oauthRecords = pgTable(
  'oauth_records',
  {
    model: text('model').notNull(),
    idHash: text('id_hash').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    grantId: text('grant_id'),
    uid: text('uid'),
    userCode: text('user_code'),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    /** No foreign key (a coordinator table): deleted with the organization (retention/org-deletion.ts). */
    orgId: uuid('org_id'),
    clientId: text('client_id'),
    createdAt: createdAt(),
    expiresAt: ts('expires_at'),
    consumedAt: ts('consumed_at'),
  },
  (t) => [
    primaryKey({ columns: [t.model, t.idHash] }),
    index('oauth_records_grant_idx').on(t.grantId).where(sql`${t.grantId} is not null`),
    index('oauth_records_uid_idx').on(t.uid).where(sql`${t.uid} is not null`),
    index('oauth_records_expires_idx').on(t.expiresAt),
    // Finds a registered client's grants and tokens (unused clients are pruned, prune-expired.ts).
    index('oauth_records_client_idx').on(t.clientId).where(sql`${t.clientId} is not null`),
  ],
);

/** A person's WebAuthn credentials (passkeys): the public key and what the authenticator said of it. */
export const passkeys = pgTable(
  'passkeys',
  {
    id: id(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The credential id (base64url) the authenticator names in every assertion. */
    credentialId: text('credential_id').notNull().unique(),
    /** The COSE public key, base64url. */
    publicKey: text('public_key').notNull(),
    /** The signature counter last seen (0 for authenticators that keep none). */
    counter: bigint('counter', { mode: 'number' }).notNull().default(0),
    transports: text('transports').array().notNull().default([]),
    name: text('name').notNull(),
    /** `singleDevice` or `multiDevice` (synced), and whether it is backed up. */
    deviceType: text('device_type').notNull(),
    backedUp: boolean('backed_up').notNull().default(false),
    createdAt: createdAt(),
    lastUsedAt: ts('last_used_at'),
  },
  (t) => [index('passkeys_user_idx').on(t.userId, t.createdAt)],
);

/**
 * WebAuthn challenges handed out and not yet answered: each is used once (deleted when an answer
 * names it) and only until expires_at. A registration or step-up challenge belongs to its session.
 */
export const webauthnChallenges = pgTable(
  'webauthn_challenges',
  {
    challenge: text('challenge').primaryKey(),
    purpose: text('purpose', { enum: ['register', 'sign_in', 'verify'] }).notNull(),
    sessionId: uuid('session_id').references(() => sessions.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [index('webauthn_challenges_expires_idx').on(t.expiresAt)],
);
