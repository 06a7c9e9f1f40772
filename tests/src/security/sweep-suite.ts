import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness';
import { checkAgentCredential, checkUnauthenticated, derivePermissions } from './access-checks';
import { checkForeignIds, checkListsHoldNoForeignIds } from './foreign-checks';
import { ownerKey, sessionsOf, thirdPartyToken } from './principals';
import {
  type Call,
  caller,
  documentedOnly,
  type OpenApiDocument,
  type Side,
  type Target,
  type Transport,
  targets,
  withoutRoute,
} from './targets';
import { type Tenant, tenant } from './tenants';

/**
 * Where the specification names the permission of a route (its interface, Administration and
 * Billing): the derived permissions must agree with it.
 */
const SPECIFIED_PERMISSIONS: Record<string, string> = {
  'GET /admin/users': 'users.invite',
  'POST /admin/users/{user_id}/role': 'users.change_role',
  'POST /admin/users/{user_id}/deactivate': 'users.remove',
  'GET /admin/org': 'org.manage',
  'PATCH /admin/org': 'org.manage',
  'GET /admin/usage': 'org.manage',
  'POST /admin/agents': 'agents.manage',
  'GET /admin/teams': 'teams.manage_members',
  'POST /admin/teams': 'teams.create',
  'PATCH /admin/teams/{team_id}': 'teams.manage_members',
  'DELETE /admin/teams/{team_id}': 'teams.delete',
  'GET /admin/teams/{team_id}/members': 'teams.manage_members',
  'POST /admin/teams/{team_id}/members': 'teams.manage_members',
  'DELETE /admin/teams/{team_id}/members/{user_id}': 'teams.manage_members',
  'GET /admin/roles': 'users.invite',
  'POST /admin/roles': 'users.change_role',
  'PATCH /admin/roles/{role_id}': 'users.change_role',
  'DELETE /admin/roles/{role_id}': 'users.change_role',
  'POST /admin/invitations': 'users.invite',
  'GET /admin/invitations': 'users.invite',
  'POST /admin/invitations/{id}/revoke': 'users.invite',
  'GET /billing/subscription': 'org.billing',
  'POST /billing/checkout': 'org.billing',
  'POST /billing/portal': 'org.billing',
};

/**
 * The security sweep over one transport (REST or tRPC), for every procedure of both routers,
 * walked from their metadata: no token → 401 with the challenge; a role without the permission →
 * 403 naming it; an agent's key or a third-party token → only the item permissions, and no
 * account operation; another organization's object → 404 and nothing of it changed.
 */
export function sweepSuite(transport: Transport) {
  let server: TestServer;
  let call: Call;
  let a: Tenant;
  let b: Tenant;
  const procedures: Target[] = [...targets('resource'), ...targets('auth')];
  const all: Target[] = [...procedures];
  const documents = {} as Record<Side, OpenApiDocument>;

  beforeAll(async () => {
    server = await startTestServer();
    call = caller(server, transport);
    a = await tenant(server);
    b = await tenant(server);
    documents.resource = (await server.resource.get<OpenApiDocument>('/api/openapi.json')).body;
    documents.auth = (await server.auth.get<OpenApiDocument>('/auth/openapi.json')).body;
    // REST also serves the routes written by hand that the documents describe (the download, and
    // the audit export that streams JSON Lines).
    if (transport === 'rest') {
      all.push(...documentedOnly('resource', documents.resource, procedures));
      all.push(...documentedOnly('auth', documents.auth, procedures));
    }
  });
  afterAll(() => server?.close());

  describe(`security sweep over ${transport}`, () => {
    it('walks every procedure of both routers', () => {
      // Every procedure has its route (one without would escape the sweep on both transports).
      expect([...withoutRoute('resource'), ...withoutRoute('auth')]).toEqual([]);
      expect(procedures.length).toBeGreaterThanOrEqual(85);
      expect(new Set(all.map((t) => `${t.side} ${t.path}`)).size).toBe(all.length);
      const handWritten = all.filter((t) => !procedures.includes(t)).map((t) => t.route);
      expect(handWritten).toEqual(
        transport === 'rest'
          ? ['/items/{id}/attachments/{aid}/download', '/audit/export', '/admin/export']
          : [],
      );
    });

    it('answers 401 with the challenge without a valid token, on every protected procedure', async () => {
      const problems = await checkUnauthenticated(call, all);
      expect(problems).toEqual([]);
      // The OpenAPI documents say the same: a bearer requirement exactly where a token is needed.
      const documented = all.map((t) => {
        const op = documents[t.side].paths[t.route]?.[t.method.toLowerCase()];
        return `${t.path}: ${op ? (op.security?.length ?? 0) > 0 : 'undocumented'}`;
      });
      expect(documented).toEqual(all.map((t) => `${t.path}: ${t.protect}`));
      // Public ones are few and named by their meta; none of them is an account or data route.
      expect(all.filter((t) => !t.protect).map((t) => t.path)).toEqual([
        'inbound.deliver',
        'push.config',
        'push.answer',
        'accounts.requestMagicLink',
        'accounts.verifyMagicLink',
        'accounts.signInOptions',
        'accounts.devLogin',
        'accounts.previewInvitation',
        'accounts.passkeySignInOptions',
        'accounts.passkeySignIn',
      ]);
    });

    it('answers 403 naming the permission to a role without it, and lets a role with it through', async () => {
      const { required, problems } = await derivePermissions(call, all, sessionsOf(server, a));
      expect(problems).toEqual([]);
      const resource = all.filter((t) => t.side === 'resource');
      const derived = Object.fromEntries(
        resource.map((t) => [`${t.method} ${t.route}`, required.get(t.path)]),
      );
      for (const [route, permission] of Object.entries(SPECIFIED_PERMISSIONS)) {
        expect(`${route}: ${derived[route]}`).toBe(`${route}: ${permission}`);
      }
      const guarded = [...required.values()].filter((p) => p !== null);
      // Most procedures need a permission; those that do not only describe the caller or are public facts.
      expect(guarded.length).toBeGreaterThan(60);
      expect([...required].filter(([, p]) => p === null).map(([path]) => path)).toEqual([
        'identity.whoAmI',
        'billing.plans',
        'push.unregister',
        'push.devices',
        'push.preferences',
        'push.updatePreferences',
        'email.settings',
        'slack.link',
        'telegram.link',
        'telegram.linkStatus',
        'discord.link',
        'discord.linkStatus',
        'teams.link',
        'teams.linkStatus',
        'twilio.phone',
        'twilio.putPhone',
        'twilio.verifyPhone',
        'twilio.deletePhone',
        'retention.exportMe',
        'retention.eraseMe',
        'accounts.me',
        'accounts.logout',
        'accounts.listOrgs',
        'accounts.createOrg',
        'accounts.switchOrg',
        'accounts.listApiKeys',
        'accounts.revokeApiKey',
        'accounts.acceptInvitation',
        'accounts.listPasskeys',
        'accounts.passkeyRegistrationOptions',
        'accounts.registerPasskey',
        'accounts.renamePasskey',
        'accounts.deletePasskey',
        'accounts.passkeyVerifyOptions',
        'accounts.verifyPasskey',
      ]);

      // An agent's key and a third-party client's token: the item permissions, no account operation.
      const key = await checkAgentCredential(call, all, required, (await ownerKey(a)).token);
      const oauth = await checkAgentCredential(call, all, required, await thirdPartyToken(a));
      expect([...key.problems, ...oauth.problems]).toEqual([]);
      expect(oauth.sessionOnly).toEqual(key.sessionOnly);
      // decisions.md: account operations need a person's own session; /auth/me accepts any token.
      const accountOps = all.filter((t) => t.side === 'auth' && t.protect && t.path !== 'accounts.me');
      expect(key.sessionOnly.filter((p) => p.startsWith('accounts.'))).toEqual(accountOps.map((t) => t.path));
    });

    it("answers 404 to another organization's ids and changes nothing of it", async () => {
      const { problems, checked } = await checkForeignIds(call, all, {
        token: a.token,
        home: a,
        victim: b,
        control: true,
      });
      expect(problems).toEqual([]);
      expect(checked).toBeGreaterThan(45);
    });

    it("keeps a key restricted to its agent's items away from the organization's other items", async () => {
      const itemRoutes = all.filter((t) => t.route.startsWith('/items/'));
      const { problems, checked } = await checkForeignIds(call, itemRoutes, {
        token: (await ownerKey(a, 'own')).token,
        home: a,
        victim: a,
        kinds: ['item'],
      });
      expect(problems).toEqual([]);
      expect(checked).toBeGreaterThan(15);
    });

    it("shows none of another organization's ids in any list", async () => {
      const { problems, lists, ids } = await checkListsHoldNoForeignIds(call, all, a.token, b);
      expect(problems).toEqual([]);
      expect(lists).toBeGreaterThan(15);
      expect(ids).toBeGreaterThan(50);
    });
  });
}
