import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { Browser } from './browser';
import { authorize, startOAuthServer, ThirdPartyClient } from './flow';

let server: TestServer;
let issuer: string;
let client: ThirdPartyClient;
let browser: Browser;

beforeAll(async () => {
  server = await startOAuthServer();
  issuer = server.authDeps.env.ISSUER_URL;
  client = await ThirdPartyClient.register(issuer, { public: true });
  browser = new Browser();
  // Signed in once: later requests of this browser go straight to consent.
  await authorize(browser, client, 'refusals@example.test');
});
afterAll(async () => {
  await server?.close();
});

/** The error an authorization request comes back to the client with, as oauth4webapi reads it. */
async function authorizationError(params: Record<string, string | undefined>) {
  const request = await client.authorizationRequest(params);
  const page = await browser.follow(request.url, client.isRedirect);
  expect(page.stoppedAt).toBeDefined();
  try {
    client.callback(String(page.stoppedAt), request.state);
  } catch (error) {
    expect(error).toBeInstanceOf(oauth.AuthorizationResponseError);
    return error as oauth.AuthorizationResponseError;
  }
  throw new Error('the authorization request was not refused');
}

describe('PKCE', () => {
  it('refuses an authorization request without a code challenge', async () => {
    const error = await authorizationError({ code_challenge: undefined, code_challenge_method: undefined });
    expect(error.error).toBe('invalid_request');
    expect(error.error_description).toMatch(/PKCE/);
  });

  it('refuses the plain method', async () => {
    const error = await authorizationError({
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'plain',
    });
    expect(error.error).toBe('invalid_request');
    expect(error.error_description).toMatch(/code_challenge_method/);
  });

  it('refuses a challenge without its method', async () => {
    const error = await authorizationError({ code_challenge_method: undefined });
    expect(error.error).toBe('invalid_request');
  });

  it('refuses a token request with the wrong verifier, and one without a verifier', async () => {
    const { location, state } = await authorize(browser, client, 'refusals@example.test');
    const params = client.callback(location, state);
    const wrong = await client.codeGrant(params, oauth.generateRandomCodeVerifier());
    await expect(
      oauth.processAuthorizationCodeResponse(client.as, client.client, wrong),
    ).rejects.toMatchObject({
      error: 'invalid_grant',
    });

    const again = await authorize(browser, client, 'refusals@example.test');
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code: client.callback(again.location, again.state).get('code') ?? '',
      redirect_uri: client.redirectUri,
      client_id: client.client.client_id,
    });
    const missing = await fetch(`${issuer}/oauth/token`, { method: 'POST', body });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('redirect URIs', () => {
  it('never redirects to a URI one character off the registered one', async () => {
    const offByOne = client.redirectUri.replace(/k$/, 'K');
    expect(offByOne).not.toBe(client.redirectUri);
    for (const uri of [offByOne, `${client.redirectUri}/`, client.redirectUri.replace('4999', '4998')]) {
      const request = await client.authorizationRequest({ redirect_uri: uri });
      const page = await browser.request(request.url);
      expect(page.status).toBe(400);
      expect(page.headers.get('location')).toBeNull();
      expect(page.body).toContain('redirect_uri');
    }
  });

  it('refuses a code exchanged with a redirect URI that differs from the request', async () => {
    const { location, verifier, state } = await authorize(browser, client, 'refusals@example.test');
    const response = await client.codeGrant(
      client.callback(location, state),
      verifier,
      `${client.redirectUri}x`,
    );
    await expect(
      oauth.processAuthorizationCodeResponse(client.as, client.client, response),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});

describe('codes', () => {
  it('uses a code once: a replay is refused and revokes the tokens it issued', async () => {
    const { location, verifier, state } = await authorize(browser, client, 'refusals@example.test');
    const params = client.callback(location, state);
    const tokens = await client.exchange(params, verifier);
    expect((await server.resource.as(tokens.access_token).get('/api/items')).status).toBe(200);

    await expect(client.exchange(params, verifier)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await server.resource.as(tokens.access_token).get('/api/items')).status).toBe(401);
    await expect(client.refresh(String(tokens.refresh_token))).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it("refuses another client's code", async () => {
    const { location, verifier, state } = await authorize(browser, client, 'refusals@example.test');
    const other = await ThirdPartyClient.register(issuer, { public: true });
    const params = client.callback(location, state);
    const response = await other.codeGrant(params, verifier);
    await expect(
      oauth.processAuthorizationCodeResponse(other.as, other.client, response),
    ).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });
});

describe('resources and grants', () => {
  it('refuses a resource indicator that is not ours', async () => {
    const error = await authorizationError({ resource: 'https://elsewhere.example/api' });
    expect(error.error).toBe('invalid_target');
  });

  it('refuses the implicit and password grants', async () => {
    // An implicit request's error comes back in the fragment, where such a client reads it.
    const request = await client.authorizationRequest({ response_type: 'token' });
    const page = await browser.follow(request.url, client.isRedirect);
    const implicit = new URLSearchParams(new URL(String(page.stoppedAt)).hash.slice(1));
    expect(implicit.get('error')).toBe('unsupported_response_type');
    const password = await fetch(`${issuer}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'password',
        username: 'a',
        password: 'b',
        client_id: client.client.client_id,
      }),
    });
    expect(password.status).toBe(400);
    expect(await password.json()).toMatchObject({ error: 'unsupported_grant_type' });
  });

  it('refuses an unknown client at the authorization endpoint without redirecting', async () => {
    const request = await client.authorizationRequest({ client_id: 'no-such-client' });
    const page = await browser.request(request.url);
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
  });
});

describe('dynamic client registration', () => {
  const register = async (metadata: Record<string, unknown>) => {
    const res = await fetch(`${issuer}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token_endpoint_auth_method: 'none', ...metadata }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('refuses an http redirect URI to anything but a loopback host', async () => {
    for (const uri of [
      'http://client.example/callback',
      'http://10.0.0.5/cb',
      'http://localhost.evil.example/cb',
    ]) {
      const refused = await register({ client_name: 'Agent', redirect_uris: ['https://ok.example/cb', uri] });
      expect(refused, uri).toEqual({
        status: 400,
        body: {
          error: 'invalid_redirect_uri',
          error_description: 'redirect_uris using http must name a loopback host (use https)',
        },
      });
    }
    for (const uri of [
      'http://127.0.0.1:4999/callback',
      'http://localhost:8080/cb',
      'http://[::1]:9/cb',
      'https://client.example/callback',
    ]) {
      expect((await register({ client_name: 'Agent', redirect_uris: [uri] })).status, uri).toBe(201);
    }
  });

  it('refuses a client name with control or bidirectional characters', async () => {
    const redirect_uris = ['http://127.0.0.1:4999/callback'];
    for (const name of [
      'Trusted\u202Eelppa',
      'Agent\u2066x\u2069',
      'Line\nbreak',
      'Zero\u200Bwidth',
      'Bell\u0007',
    ]) {
      const refused = await register({ client_name: name, redirect_uris });
      expect(refused, JSON.stringify(name)).toEqual({
        status: 400,
        body: {
          error: 'invalid_client_metadata',
          error_description: 'client_name must not contain control or bidirectional characters',
        },
      });
    }
    const accepted = await register({ client_name: 'Agent Ünïcode 代理 🤖', redirect_uris });
    expect(accepted.status).toBe(201);
    expect(accepted.body.client_name).toBe('Agent Ünïcode 代理 🤖');
  });
});
