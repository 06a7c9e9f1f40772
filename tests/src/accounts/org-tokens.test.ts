import { generateOrgToken, generateToken, hashToken, orgOfToken } from '@beckon/server/auth/tokens';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';

type Me = { org_id: string; agent_id: string | null; source: string };
type Created = { id: string; token: string };

let server: TestServer;
let f: Factories;

beforeAll(async () => {
  server = await startTestServer();
  f = new Factories(server.database.db);
});
afterAll(() => server?.close());

/** An owner with an agent; `auth` makes API keys, `resource` the items API. */
async function owner() {
  const account = await f.account('owner');
  const agent = await f.agent(account.org.id, account.user.id);
  return {
    ...account,
    agent,
    auth: server.auth.as(account.token),
    resource: server.resource.as(account.token),
  };
}

/** `token` with its organization part (`bk_<22 characters>_`) replaced by another organization's. */
const namingOrg = (token: string, orgId: string) => generateOrgToken(orgId).slice(0, 26) + token.slice(26);

describe('tokens that name their organization', () => {
  it('an API key names its organization and is found by it', async () => {
    const { auth, agent, org } = await owner();
    const created = await auth.post<{ key: string }>('/auth/api-keys', {
      agent_id: agent.id,
      label: 'ci',
      expires_in_days: 30,
    });
    expect(created.status).toBe(201);
    expect(orgOfToken(created.body.key)).toBe(org.id);
    const me = await server.resource.as(created.body.key).get<Me>('/api/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ org_id: org.id, agent_id: agent.id, source: 'api_key' });
  });

  it('a key whose organization part is changed is refused, even to an organization of its owner', async () => {
    const { user, agent, org } = await owner();
    const second = await f.org();
    await f.member(second.id, user.id, 'owner');
    const key = await f.apiKey(org.id, user.id, { agentId: agent.id });
    expect((await server.resource.as(key.token).get('/api/me')).status).toBe(200);
    const moved = namingOrg(key.token, second.id);
    expect(orgOfToken(moved)).toBe(second.id);
    const refused = await server.resource.as(moved).get('/api/me');
    expect(refused.status).toBe(401);
  });

  it('a key made before keys named their organization keeps working through its recorded organization', async () => {
    const { user, agent, org } = await owner();
    // As the migration leaves it: a plain token, its organization recorded by hash.
    const old = generateToken();
    const key = await f.apiKey(org.id, user.id, { agentId: agent.id, token: old });
    expect(orgOfToken(key.token)).toBeNull();
    expect((await server.resource.as(old).get('/api/me')).status).toBe(401);
    await server.database.sql`
      insert into legacy_credentials (token_hash, org_id) values (${hashToken(old)}, ${org.id})`;
    const me = await server.resource.as(old).get<Me>('/api/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ org_id: org.id, agent_id: agent.id });
  });

  it('an inbound webhook token names its organization; an old one works through its recorded organization', async () => {
    const { resource, org } = await owner();
    const hook = await resource.post<Created>('/api/inbound-webhooks', { name: 'ci' });
    expect(hook.status).toBe(201);
    expect(orgOfToken(hook.body.token)).toBe(org.id);
    const deliver = (token: string) =>
      server.resource
        .as(null)
        .post<{ title: string }>(`/api/webhooks/inbound/${token}`, { title: 'Build failed' });
    expect((await deliver(hook.body.token)).status).toBe(201);
    const elsewhere = await f.org();
    expect((await deliver(namingOrg(hook.body.token, elsewhere.id))).status).toBe(404);

    const old = generateToken();
    await server.database.sql`
      update inbound_webhooks set token_hash = ${hashToken(old)} where org_id = ${org.id} and id = ${hook.body.id}`;
    expect((await deliver(old)).status).toBe(404);
    await server.database.sql`
      insert into legacy_credentials (token_hash, org_id) values (${hashToken(old)}, ${org.id})`;
    const created = await deliver(old);
    expect(created.status).toBe(201);
    expect(created.body.title).toBe('Build failed');
  });
});
