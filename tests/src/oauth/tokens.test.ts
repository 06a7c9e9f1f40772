import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { Browser } from './browser';
import { authorize, insecure, startOAuthServer, ThirdPartyClient } from './flow';

let server: TestServer;
let issuer: string;
let resourceUrl: string;

beforeAll(async () => {
  server = await startOAuthServer();
  issuer = server.authDeps.env.ISSUER_URL;
  resourceUrl = server.deps.env.RESOURCE_URL;
});
afterAll(async () => {
  await server?.close();
});

const mcpHeaders = { accept: 'application/json, text/event-stream' };
const listTools = (id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'service.list', arguments: {} },
});

/** A signed-in person's authorization for `client`, exchanged for tokens. */
async function tokensFor(client: ThirdPartyClient, email: string, params: Record<string, string> = {}) {
  const browser = new Browser();
  const { location, verifier, state } = await authorize(browser, client, email, params);
  return client.exchange(client.callback(location, state), verifier);
}

/** The status of GET /api/items with this token (revocations are seen at once: no waiting). */
async function itemsStatus(token: string) {
  return (await server.resource.as(token).get('/api/items')).status;
}

const invalidGrant = { error: 'invalid_grant' };

describe('discovery', () => {
  it('answers 401 with the challenge on /api/* and /mcp, which leads to the authorization server', async () => {
    const api = await server.resource.as(null).get('/api/items');
    const mcp = await server.resource.as(null).post('/mcp', listTools(), { headers: mcpHeaders });
    const challenge = `Bearer realm="beckon", resource_metadata="${resourceUrl}/.well-known/oauth-protected-resource"`;
    for (const response of [api, mcp]) {
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ error: 'unauthorized', code: 'unauthorized' });
      expect(response.headers.get('www-authenticate')).toBe(challenge);
    }
    const bad = await server.resource.as('not-a-token').post('/mcp', listTools(), { headers: mcpHeaders });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe(challenge);

    // The path an MCP client takes: the challenge's metadata, then the server it names.
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1] ?? '';
    const metadata = (await (await fetch(metadataUrl)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      resource: resourceUrl,
      authorization_servers: [issuer],
      bearer_methods_supported: ['header'],
      scopes_supported: ['items.read', 'items.write', 'items.archive'],
    });
    const as = await ThirdPartyClient.discover(String((metadata.authorization_servers as string[])[0]));
    expect(as.issuer).toBe(issuer);
  });

  it('publishes RFC 8414 metadata for an OAuth 2.1 server, and the resource metadata on both processes', async () => {
    const as = await ThirdPartyClient.discover(issuer);
    expect(as).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      registration_endpoint: `${issuer}/oauth/register`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(as.jwks_uri).toBeUndefined();
    expect(as.scopes_supported).not.toContain('openid');
    const onAuth = await server.auth.get('/.well-known/oauth-protected-resource');
    const onResource = await server.resource.get('/.well-known/oauth-protected-resource');
    expect(onAuth.status).toBe(200);
    expect(onAuth.body).toEqual(onResource.body);
  });
});

describe('registration', () => {
  it('registers confidential clients with a secret and public clients without one', async () => {
    const confidential = await ThirdPartyClient.register(issuer);
    expect(confidential.client.client_id).toEqual(expect.any(String));
    expect(confidential.client.client_secret).toEqual(expect.any(String));
    const pub = await ThirdPartyClient.register(issuer, { public: true });
    expect(pub.client.token_endpoint_auth_method).toBe('none');
    expect(pub.client.client_secret).toBeUndefined();
  });

  it('refuses implicit clients and registrations without redirect URIs', async () => {
    const register = (body: unknown) => server.auth.post('/oauth/register', body);
    const implicit = await register({
      redirect_uris: ['https://agent.example/cb'],
      response_types: ['token'],
      grant_types: ['implicit'],
    });
    expect(implicit.status).toBe(400);
    expect(implicit.body).toMatchObject({ error: 'invalid_client_metadata' });
    const password = await register({
      redirect_uris: ['https://agent.example/cb'],
      grant_types: ['password'],
    });
    expect(password.status).toBe(400);
    const none = await register({ client_name: 'x' });
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ error: 'invalid_redirect_uri' });
  });
});

describe('tokens', () => {
  it('runs the whole flow for a public client: code, tokens, /api/items and /mcp', async () => {
    const client = await ThirdPartyClient.register(issuer, { public: true, name: 'Agent Smith' });
    const browser = new Browser();
    const { location, verifier, state } = await authorize(browser, client, 'flow@example.test', {
      resource: `${resourceUrl}/mcp`,
    });
    const response = await client.codeGrant(client.callback(location, state), verifier);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const tokens = await oauth.processAuthorizationCodeResponse(client.as, client.client, response);
    expect(tokens).toMatchObject({
      token_type: 'bearer',
      expires_in: 3600,
      scope: 'items.read items.write items.archive',
      refresh_token: expect.any(String),
    });
    expect(tokens.id_token).toBeUndefined();

    const created = await server.resource
      .as(tokens.access_token)
      .post('/api/items', { title: 'From an agent' });
    expect(created.status).toBe(201);
    const items = await oauth.protectedResourceRequest(
      tokens.access_token,
      'GET',
      new URL(`${resourceUrl}/api/items`),
      undefined,
      undefined,
      insecure,
    );
    expect(items.status).toBe(200);
    expect(await items.json()).toMatchObject({ items: [{ title: 'From an agent' }] });

    const mcp = await server.resource
      .as(tokens.access_token)
      .post('/mcp', listTools(), { headers: mcpHeaders });
    expect(mcp.status).toBe(200);
    const result = (mcp.body as { result: { content: Array<{ text: string }> } }).result;
    expect(JSON.parse(result.content[0]?.text ?? '')).toMatchObject({ items: [{ title: 'From an agent' }] });

    const me = await server.resource.as(tokens.access_token).get('/api/me');
    expect(me.body).toMatchObject({
      source: 'session',
      agent_id: null,
      client_id: client.client.client_id,
      permissions: ['items.read', 'items.write', 'items.archive'],
    });
  });

  it('stores neither token nor code in clear: only their SHA-256', async () => {
    const client = await ThirdPartyClient.register(issuer);
    const tokens = await tokensFor(client, 'clear@example.test');
    const rows = await server.database.sql<
      { text: string }[]
    >`select row_to_json(r)::text as text from oauth_records r`;
    const dump = rows.map((r) => r.text).join('\n');
    expect(dump).not.toContain(tokens.access_token);
    expect(dump).not.toContain(String(tokens.refresh_token));
  });

  it('authenticates a confidential client by its registered method, and refuses one without its secret', async () => {
    const post = await ThirdPartyClient.register(issuer, { method: 'client_secret_post' });
    expect(post.client.token_endpoint_auth_method).toBe('client_secret_post');
    expect(await itemsStatus((await tokensFor(post, 'post@example.test')).access_token)).toBe(200);

    // What a client sends as `none`: its client_id, no secret.
    const basic = await ThirdPartyClient.register(issuer);
    const { location, verifier, state } = await authorize(new Browser(), basic, 'nosecret@example.test');
    const params = basic.callback(location, state);
    const args = [
      basic.as,
      basic.client,
      oauth.None(),
      params,
      basic.redirectUri,
      verifier,
      insecure,
    ] as const;
    const response = await oauth.authorizationCodeGrantRequest(...args);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'invalid_client' });
    // The code still stands for the client that authenticates.
    expect(await itemsStatus((await basic.exchange(params, verifier)).access_token)).toBe(200);
  });

  it('rotates the refresh token on every use; an old one is refused and revokes the grant', async () => {
    const client = await ThirdPartyClient.register(issuer);
    const first = await tokensFor(client, 'rotate@example.test');
    const second = await client.refresh(String(first.refresh_token));
    expect(second.refresh_token).toEqual(expect.any(String));
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    const third = await client.refresh(String(second.refresh_token));
    expect(await itemsStatus(third.access_token)).toBe(200);

    await expect(client.refresh(String(first.refresh_token))).rejects.toMatchObject(invalidGrant);
    // The whole grant is gone: the newest tokens stop working too.
    expect(await itemsStatus(third.access_token)).toBe(401);
    expect(await itemsStatus(second.access_token)).toBe(401);
    await expect(client.refresh(String(third.refresh_token))).rejects.toMatchObject(invalidGrant);
  });

  it('lets one of two racing refreshes with the same token through, then revokes the grant', async () => {
    const client = await ThirdPartyClient.register(issuer);
    const first = await tokensFor(client, 'race@example.test');
    const results = await Promise.allSettled([
      client.refresh(String(first.refresh_token)),
      client.refresh(String(first.refresh_token)),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won.length).toBeLessThanOrEqual(1);
    for (const lost of results.filter((r) => r.status === 'rejected')) {
      expect((lost as PromiseRejectedResult).reason).toMatchObject(invalidGrant);
    }
    // A reuse happened either way: nothing issued from this grant works any more.
    for (const r of won) {
      const tokens = (r as PromiseFulfilledResult<{ access_token: string }>).value;
      expect(await itemsStatus(tokens.access_token)).toBe(401);
    }
    expect(await itemsStatus(first.access_token)).toBe(401);
  });

  it('revokes an access token (RFC 7009); the grant tokens go with it', async () => {
    const client = await ThirdPartyClient.register(issuer);
    const tokens = await tokensFor(client, 'revoke-at@example.test');
    expect(await itemsStatus(tokens.access_token)).toBe(200);
    await client.revoke(tokens.access_token);
    expect(await itemsStatus(tokens.access_token)).toBe(401);
    await expect(client.refresh(String(tokens.refresh_token))).rejects.toMatchObject(invalidGrant);
    // Revoking again, or a token that never existed, is still a 200.
    await client.revoke(tokens.access_token);
    await client.revoke('unknown-token');
  });

  it('revokes a refresh token, and the access tokens of its grant', async () => {
    const client = await ThirdPartyClient.register(issuer, { public: true });
    const tokens = await tokensFor(client, 'revoke-rt@example.test');
    await client.revoke(String(tokens.refresh_token));
    await expect(client.refresh(String(tokens.refresh_token))).rejects.toMatchObject(invalidGrant);
    expect(await itemsStatus(tokens.access_token)).toBe(401);
  });

  it("ignores another client's token at the revocation endpoint", async () => {
    const owner = await ThirdPartyClient.register(issuer);
    const other = await ThirdPartyClient.register(issuer);
    const tokens = await tokensFor(owner, 'other-client@example.test');
    await other.revoke(tokens.access_token);
    expect(await itemsStatus(tokens.access_token)).toBe(200);
  });

  it('narrows the token to the scopes asked for', async () => {
    const client = await ThirdPartyClient.register(issuer);
    const tokens = await tokensFor(client, 'narrow@example.test', { scope: 'items.read' });
    expect(tokens.scope).toBe('items.read');
    const api = server.resource.as(tokens.access_token);
    expect((await api.get('/api/items')).status).toBe(200);
    const refused = await api.post('/api/items', { title: 'no' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'items.write',
    });
    expect((await api.get('/api/me')).body).toMatchObject({ permissions: ['items.read'] });
  });

  it('gives a token no account operations: API keys and organizations need a person', async () => {
    const client = await ThirdPartyClient.register(issuer);
    const tokens = await tokensFor(client, 'account-ops@example.test');
    const keys = await server.auth.as(tokens.access_token).get('/auth/api-keys');
    expect(keys.status).toBe(403);
  });
});
