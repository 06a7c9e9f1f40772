import { schema } from '@beckon/db';
import { hashToken } from '@beckon/server/auth/tokens';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';

let server: TestServer;
let f: Factories;
const HOUR = 3600 * 1000;

beforeAll(async () => {
  server = await startTestServer();
  f = new Factories(server.database.db);
});
afterAll(() => server?.close());

const me = (token: string) => server.resource.get<Record<string, unknown>>('/api/me', { token });

describe('identity resolution', () => {
  it('resolves a live session to the identity object', async () => {
    const { org, user, token } = await f.account('member');
    const res = await me(token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      user_id: user.id,
      org_id: org.id,
      agent_id: null,
      source: 'session',
      role: 'member',
      permissions: ['items.read', 'items.write', 'items.archive'],
    });
  });

  it('refuses expired, revoked and unknown tokens with 401', async () => {
    const { org, user } = await f.account();
    const expired = await f.session(user.id, org.id, { expiresAt: new Date(Date.now() - HOUR) });
    const revoked = await f.session(user.id, org.id, { revokedAt: new Date() });
    for (const token of [expired.token, revoked.token, 'not-a-token-we-issued', '']) {
      const res = await me(token);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
    }
  });

  it('refuses a header that is not a bearer token', async () => {
    const { token } = await f.account();
    const res = await server.resource.get('/api/me', {
      token: null,
      headers: { authorization: `Basic ${token}` },
    });
    expect(res.status).toBe(401);
  });

  it('stops a session the moment it is revoked (nothing cached)', async () => {
    const { token, session } = await f.account();
    expect((await me(token)).status).toBe(200);
    await server.database.db
      .update(schema.sessions)
      .set({ revokedAt: new Date() })
      .where(eq(schema.sessions.id, session.id));
    await server.syncIdentities();
    expect((await me(token)).status).toBe(401);
  });

  it('resolves an API key to its agent, with the item permissions of its owner', async () => {
    const { org, user } = await f.account('owner');
    const key = await f.apiKey(org.id, user.id);
    const res = await me(key.token);
    expect(res.body).toEqual({
      user_id: user.id,
      org_id: org.id,
      agent_id: key.agentId,
      source: 'api_key',
      role: 'owner',
      permissions: ['items.read', 'items.write', 'items.archive'],
    });

    const viewer = await f.account('viewer');
    const viewerKey = await f.apiKey(viewer.org.id, viewer.user.id);
    expect((await me(viewerKey.token)).body).toMatchObject({ permissions: ['items.read'] });
  });

  it('refuses expired and revoked API keys, the revoked one on the very next request', async () => {
    const { org, user } = await f.account();
    const expired = await f.apiKey(org.id, user.id, { expiresAt: new Date(Date.now() - 1000) });
    expect((await me(expired.token)).status).toBe(401);

    const key = await f.apiKey(org.id, user.id);
    expect((await me(key.token)).status).toBe(200);
    await server.database.db
      .update(schema.apiKeys)
      .set({ revokedAt: new Date() })
      .where(eq(schema.apiKeys.id, key.id));
    await server.syncIdentities();
    expect((await me(key.token)).status).toBe(401);
  });

  it('tries the token as a session before an API key', async () => {
    const a = await f.account('viewer');
    const b = await f.account('owner');
    const shared = await f.apiKey(b.org.id, b.user.id);
    await f.session(a.user.id, a.org.id, { token: shared.token });
    const res = await me(shared.token);
    expect(res.body).toMatchObject({ user_id: a.user.id, source: 'session', agent_id: null });
  });

  it('resolves an OAuth access token as a session with its client id', async () => {
    const { org, user } = await f.account('member');
    const token = 'oauth-access-token-value-for-the-test-0123456789';
    await server.database.db.insert(schema.oauthRecords).values({
      model: 'AccessToken',
      idHash: hashToken(token),
      payload: { accountId: user.id },
      userId: user.id,
      orgId: org.id,
      clientId: 'client-123',
      expiresAt: new Date(Date.now() + HOUR),
    });
    expect((await me(token)).body).toMatchObject({
      user_id: user.id,
      source: 'session',
      client_id: 'client-123',
    });
  });

  it('stops every credential of a member who leaves the organization', async () => {
    const { org, user, token } = await f.account('member');
    const key = await f.apiKey(org.id, user.id);
    expect((await me(token)).status).toBe(200);
    expect((await me(key.token)).status).toBe(200);
    await server.database.db.delete(schema.memberships).where(eq(schema.memberships.userId, user.id));
    await server.syncIdentities();
    expect((await me(token)).status).toBe(401);
    expect((await me(key.token)).status).toBe(401);
  });

  it('follows a role change on the next request', async () => {
    const { user, token } = await f.account('owner');
    expect((await me(token)).body).toMatchObject({ role: 'owner' });
    const viewer = await f.systemRole('viewer');
    await server.database.db
      .update(schema.memberships)
      .set({ roleId: viewer.id })
      .where(eq(schema.memberships.userId, user.id));
    await server.syncIdentities();
    expect((await me(token)).body).toMatchObject({ role: 'viewer', permissions: ['items.read'] });
  });
});
