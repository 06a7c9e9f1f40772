import { randomBytes } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { freePort, startTestServer, type TestServer } from '../harness';
import { type Browser, findLink, type Page } from './browser';

export const insecure = { [oauth.allowInsecureRequests]: true } as const;

/**
 * Both processes on ports chosen up front, so ISSUER_URL and RESOURCE_URL are the addresses
 * they really answer on (the client checks the issuer it discovers).
 */
export async function startOAuthServer(env: Record<string, string> = {}): Promise<TestServer> {
  const [auth, resource] = [await freePort(), await freePort()];
  return startTestServer({
    ports: { auth, resource },
    env: {
      ISSUER_URL: `http://127.0.0.1:${auth}`,
      RESOURCE_URL: `http://127.0.0.1:${resource}`,
      OAUTH_SIGNING_KEY: randomBytes(32).toString('hex'),
      ...env,
    },
  });
}

/** A third-party client driven by oauth4webapi: discovery, registration, PKCE, tokens. */
export class ThirdPartyClient {
  private constructor(
    readonly as: oauth.AuthorizationServer,
    readonly client: oauth.Client,
    readonly auth: oauth.ClientAuth,
    readonly redirectUri: string,
  ) {}

  static async discover(issuer: string): Promise<oauth.AuthorizationServer> {
    const url = new URL(issuer);
    const response = await oauth.discoveryRequest(url, { algorithm: 'oauth2', ...insecure });
    return oauth.processDiscoveryResponse(url, response);
  }

  static async register(
    issuer: string,
    options: {
      public?: boolean;
      name?: string;
      redirectUri?: string;
      /** How a confidential client authenticates at the token endpoint (default Basic). */
      method?: 'client_secret_basic' | 'client_secret_post';
    } = {},
  ): Promise<ThirdPartyClient> {
    const method = options.method ?? 'client_secret_basic';
    const as = await ThirdPartyClient.discover(issuer);
    const redirectUri = options.redirectUri ?? 'http://127.0.0.1:4999/callback';
    const response = await oauth.dynamicClientRegistrationRequest(
      as,
      {
        redirect_uris: [redirectUri],
        client_name: options.name ?? 'Test Agent',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: options.public ? 'none' : method,
      },
      insecure,
    );
    const client = await oauth.processDynamicClientRegistrationResponse(response);
    const secret = String(client.client_secret);
    const auth = options.public
      ? oauth.None()
      : method === 'client_secret_post'
        ? oauth.ClientSecretPost(secret)
        : oauth.ClientSecretBasic(secret);
    return new ThirdPartyClient(as, client, auth, redirectUri);
  }

  /** A public client whose client_id is the HTTPS URL of its metadata document (no registration). */
  static async fromMetadataDocument(issuer: string, clientId: string, redirectUri: string) {
    const as = await ThirdPartyClient.discover(issuer);
    return new ThirdPartyClient(
      as,
      { client_id: clientId, token_endpoint_auth_method: 'none' },
      oauth.None(),
      redirectUri,
    );
  }

  isRedirect = (location: string) => location.startsWith(this.redirectUri.split('?')[0] ?? '');

  /** An authorization request with PKCE S256; `params` overrides or removes (undefined) any. */
  async authorizationRequest(params: Record<string, string | undefined> = {}) {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(String(this.as.authorization_endpoint));
    const all: Record<string, string | undefined> = {
      client_id: this.client.client_id,
      redirect_uri: this.redirectUri,
      response_type: 'code',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      ...params,
    };
    for (const [name, value] of Object.entries(all))
      if (value !== undefined) url.searchParams.set(name, value);
    return { url: url.href, verifier, state };
  }

  /** The callback's parameters, checked by oauth4webapi (state, iss, error). */
  callback(location: string, state: string): URLSearchParams {
    return oauth.validateAuthResponse(this.as, this.client, new URL(location), state);
  }

  codeGrant(params: URLSearchParams, verifier: string, redirectUri = this.redirectUri) {
    return oauth.authorizationCodeGrantRequest(
      this.as,
      this.client,
      this.auth,
      params,
      redirectUri,
      verifier,
      insecure,
    );
  }

  async exchange(params: URLSearchParams, verifier: string) {
    return oauth.processAuthorizationCodeResponse(
      this.as,
      this.client,
      await this.codeGrant(params, verifier),
    );
  }

  async refresh(refreshToken: string) {
    const response = await oauth.refreshTokenGrantRequest(
      this.as,
      this.client,
      this.auth,
      refreshToken,
      insecure,
    );
    return oauth.processRefreshTokenResponse(this.as, this.client, response);
  }

  async revoke(token: string) {
    const response = await oauth.revocationRequest(this.as, this.client, this.auth, token, insecure);
    return oauth.processRevocationResponse(response);
  }
}

/** Signs the browser in from the sign-in page with a magic link (development mode returns it). */
export async function signInWithMagicLink(
  browser: Browser,
  page: Page,
  email: string,
  stop: (l: string) => boolean,
) {
  const sent = await browser.submit(page, '/magic-link', { email }, stop);
  const link = new URL(findLink(sent.body, 'Continue'), sent.url).href;
  const confirm = await browser.request(link);
  return browser.submit(confirm, '/verify', {}, stop);
}

export const isSignInPage = (page: Page) => page.body.includes('Sign in to Beckon');
export const isConsentPage = (page: Page) => page.body.includes('name="decision" value="allow"');

/**
 * The whole browser part: the authorization request, sign-in if the browser has no session,
 * consent (Allow) if asked. Answers the redirect to the client.
 */
export async function authorize(
  browser: Browser,
  client: ThirdPartyClient,
  email: string,
  params: Record<string, string | undefined> = {},
) {
  const request = await client.authorizationRequest(params);
  const location = await approveInBrowser(browser, request.url, email, client.isRedirect);
  return { ...request, location };
}

/**
 * The browser part of any authorization request URL (one a test built or one another program
 * printed): sign-in if needed, consent (Allow) if asked. Answers the redirect `isRedirect` accepts.
 */
export async function approveInBrowser(
  browser: Browser,
  url: string,
  email: string,
  isRedirect: (location: string) => boolean,
): Promise<string> {
  let page = await browser.follow(url, isRedirect);
  if (!page.stoppedAt && isSignInPage(page))
    page = await signInWithMagicLink(browser, page, email, isRedirect);
  if (!page.stoppedAt && isConsentPage(page)) {
    page = await browser.submit(page, '/consent', { decision: 'allow' }, isRedirect);
  }
  if (!page.stoppedAt)
    throw new Error(`the flow did not come back to the client:\n${page.status} ${page.body}`);
  return page.stoppedAt;
}
