import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, MCP_ACCEPT, startTestServer, type TestServer } from '../harness';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

describe('API answers', () => {
  it('carry X-Content-Type-Options: nosniff, whatever answers them', async () => {
    const account = await new Factories(server.database.db).account('owner');
    const key = await new Factories(server.database.db).apiKey(account.org.id, account.user.id);
    const person = server.resource.as(account.token);
    const mcp = await fetch(`${server.resource.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key.token}`,
        'content-type': 'application/json',
        accept: MCP_ACCEPT,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    const answers = [
      await person.get('/api/me'),
      await server.resource.get('/api/me'), // 401
      await person.get('/api/items/not-a-uuid'), // 400
      await person.post('/api/items', 'not json', { raw: true, headers: { 'content-type': 'text/html' } }), // 415
      await person.get('/trpc/identity.whoAmI'),
      await server.auth.get('/.well-known/oauth-authorization-server'), // oidc-provider
      await server.auth.as(account.token).get('/auth/me'),
      await server.resource.get('/nowhere'), // 404
    ];
    for (const answer of [...answers, { status: mcp.status, headers: mcp.headers }]) {
      expect(answer.headers.get('x-content-type-options'), `status ${answer.status}`).toBe('nosniff');
    }
    expect(answers.map((a) => a.status)).toEqual([200, 401, 400, 415, 200, 200, 200, 404]);
  });
});
