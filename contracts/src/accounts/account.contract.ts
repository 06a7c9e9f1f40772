import { z } from 'zod';
import { ZIdentityView } from '../identity/identity.contract';
import type { Meta } from '../meta';

/** /auth/me: the identity object plus the user, the organization, the role and permissions. */
export const ZAccountView = ZIdentityView.extend({
  user: z.object({ id: z.uuid(), email: z.string(), name: z.string().nullable() }),
  org: z.object({ id: z.uuid(), name: z.string(), slug: z.string() }),
}).meta({ id: 'Account' });
export type AccountView = z.infer<typeof ZAccountView>;

const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
export const ZSlug = z.string().regex(SLUG_PATTERN, {
  error: 'must be 1-64 lowercase letters, digits or "-", not starting or ending with "-"',
});

export const ZOrganization = z
  .object({
    id: z.uuid(),
    name: z.string(),
    slug: z.string(),
    metadata: z.record(z.string(), z.unknown()),
    is_personal: z.boolean(),
    role: z.string().describe("The caller's role in it"),
    created_at: z.string(),
  })
  .meta({ id: 'Organization' });
export type OrganizationView = z.infer<typeof ZOrganization>;

export const ZCreateOrgInput = z.strictObject({
  name: z.string().trim().min(1).max(100),
  slug: ZSlug.optional().describe('Derived from the name when absent'),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type CreateOrgInput = z.infer<typeof ZCreateOrgInput>;

export const ZSwitchOrgInput = z.strictObject({ org_id: z.uuid() });

export const ZLogoutOutput = z.object({ message: z.string() });

/** What a sign-in page needs to know about this deployment. */
export const ZSignInOptions = z
  .object({
    providers: z.array(z.enum(['idp_a', 'idp_b', 'idp_c'])).describe('External providers that are enabled'),
    magic_link: z.object({ mail: z.boolean().describe('false: development mode, the token is returned') }),
    dev_login: z.boolean().describe('POST /auth/dev-login is available (DEV_LOGIN_ENABLED)'),
  })
  .meta({ id: 'SignInOptions' });

const tags = ['auth'];
const protect = true;
export const accountMeta = {
  signInOptions: {
    openapi: {
      method: 'GET',
      path: '/config',
      protect: false,
      tags,
      summary: 'Sign-in methods this deployment offers',
    },
  },
  me: {
    openapi: { method: 'GET', path: '/me', protect, tags, summary: 'The identity, user and organization' },
  },
  logout: {
    openapi: { method: 'POST', path: '/logout', protect, tags, summary: 'Revoke the current session' },
  },
  listOrgs: {
    openapi: {
      method: 'GET',
      path: '/orgs',
      protect,
      tags,
      summary: 'The organizations the user belongs to',
    },
  },
  createOrg: {
    status: 201,
    openapi: {
      method: 'POST',
      path: '/orgs',
      protect,
      tags,
      summary: 'Create an organization (the caller becomes its Owner, on the Free plan)',
    },
  },
  switchOrg: {
    openapi: {
      method: 'POST',
      path: '/switch-org',
      protect,
      tags,
      summary: 'A new session scoped to another organization the user belongs to',
      description: '404 when the organization does not exist or the user is not a member.',
    },
  },
} satisfies Record<string, Meta>;

/** What every sign-in answers: the bearer token (shown once) and the scope it carries. */
export const ZSessionGrant = z
  .object({
    token: z.string().describe('Session bearer token; only its hash is stored'),
    user_id: z.uuid(),
    org_id: z.uuid(),
    expires_at: z.string(),
  })
  .meta({ id: 'SessionGrant' });
export type SessionGrant = z.infer<typeof ZSessionGrant>;
