import { randomUUID } from 'node:crypto';
import { type Db, schema } from '@beckon/db';
import { generateOrgToken, generateToken, hashToken } from '@beckon/server/auth/tokens';
import { and, eq, isNull } from 'drizzle-orm';
import type { HttpClient } from './http';

const DAY = 24 * 3600 * 1000;
const unique = () => randomUUID().slice(0, 8);

export type SystemRole = 'owner' | 'admin' | 'member' | 'viewer';

/** Rows for tests, written straight to the database; credentials come back with their raw token. */
export class Factories {
  constructor(private readonly db: Db) {}

  async org(options: { name?: string; personal?: boolean } = {}) {
    const name = options.name ?? `Org ${unique()}`;
    const [org] = await this.db
      .insert(schema.organizations)
      .values({ name, slug: `org-${unique()}`, isPersonal: options.personal ?? false })
      .returning();
    // Its slug held as the product holds it (accounts/users.ts claimSlug).
    await this.db.insert(schema.organizationSlugs).values({ slug: org!.slug, orgId: org!.id });
    return org!;
  }

  async user(options: { email?: string; name?: string } = {}) {
    const [user] = await this.db
      .insert(schema.users)
      .values({ email: options.email ?? `user-${unique()}@example.test`, name: options.name ?? 'Test User' })
      .returning();
    return user!;
  }

  async systemRole(name: SystemRole) {
    const [role] = await this.db
      .select()
      .from(schema.roles)
      .where(and(eq(schema.roles.name, name), isNull(schema.roles.orgId)));
    return role!;
  }

  async member(orgId: string, userId: string, role: SystemRole | { id: string } = 'owner') {
    const roleId = typeof role === 'string' ? (await this.systemRole(role)).id : role.id;
    const [membership] = await this.db
      .insert(schema.memberships)
      .values({ orgId, userId, roleId })
      .returning();
    return membership!;
  }

  async session(
    userId: string,
    orgId: string,
    options: { expiresAt?: Date; revokedAt?: Date; token?: string } = {},
  ) {
    const token = options.token ?? generateToken();
    const [session] = await this.db
      .insert(schema.sessions)
      .values({
        tokenHash: hashToken(token),
        userId,
        orgId,
        origin: 'login',
        expiresAt: options.expiresAt ?? new Date(Date.now() + 30 * DAY),
        revokedAt: options.revokedAt,
      })
      .returning();
    return { ...session!, token };
  }

  async agent(orgId: string, createdBy?: string) {
    const [agent] = await this.db
      .insert(schema.agents)
      .values({ orgId, name: `agent-${unique()}`, createdBy })
      .returning();
    return agent!;
  }

  async apiKey(
    orgId: string,
    userId: string,
    options: {
      agentId?: string;
      expiresAt?: Date;
      revokedAt?: Date;
      token?: string;
      itemAccess?: 'organization' | 'own';
    } = {},
  ) {
    const token = options.token ?? generateOrgToken(orgId);
    const agentId = options.agentId ?? (await this.agent(orgId, userId)).id;
    const [key] = await this.db
      .insert(schema.apiKeys)
      .values({
        tokenHash: hashToken(token),
        orgId,
        agentId,
        userId,
        label: 'test key',
        expiresAt: options.expiresAt,
        revokedAt: options.revokedAt,
        itemAccess: options.itemAccess,
      })
      .returning();
    return { ...key!, token };
  }

  /** An organization with one member of the given role, signed in. */
  async account(role: SystemRole = 'owner', options: { personal?: boolean } = {}) {
    const org = await this.org(options);
    const user = await this.user();
    await this.member(org.id, user.id, role);
    const session = await this.session(user.id, org.id);
    return { org, user, token: session.token, session };
  }

  /** An organization with its owner signed in on `resource`, and `join(role)` for colleagues. */
  async team(resource: HttpClient) {
    const account = await this.account('owner');
    const join = async (role: SystemRole | { id: string } = 'member') => {
      const user = await this.user();
      await this.member(account.org.id, user.id, role);
      const session = await this.session(user.id, account.org.id);
      return { id: user.id, token: session.token, api: resource.as(session.token) };
    };
    return { ...account, owner: resource.as(account.token), join };
  }
}

/**
 * The callers most tests compare: an owner, a member and a viewer of one organization, and the
 * owner of another organization, each signed in on the resource process.
 */
export async function signedInCallers(db: Db, resource: HttpClient) {
  const factories = new Factories(db);
  const account = await factories.account('owner');
  const colleague = async (role: SystemRole) => {
    const user = await factories.user();
    await factories.member(account.org.id, user.id, role);
    return resource.as((await factories.session(user.id, account.org.id)).token);
  };
  return {
    factories,
    orgId: account.org.id,
    userId: account.user.id,
    owner: resource.as(account.token),
    member: await colleague('member'),
    viewer: await colleague('viewer'),
    other: resource.as((await factories.account('owner')).token),
  };
}

/** The 402 body of a plan gate (the specification's interface, Errors), with the default APP_URL. */
export const planLimitBody = (key: string, limit: number, current: number) => ({
  error: 'plan_limit_exceeded',
  code: 'plan_limit_exceeded',
  key,
  limit,
  current,
  upgrade_url: 'http://localhost:5173/settings/billing',
});
