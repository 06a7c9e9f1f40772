// Longer than 300 lines: the three identity providers' fakes share one TLS-intercepting dispatcher and key set.
import { createHash, createSign, createVerify, generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import type { Clock } from '@beckon/server/clock';
import { Agent, buildConnector, type Dispatcher, getGlobalDispatcher, setGlobalDispatcher } from 'undici';

/**
 * The three external identity providers, faked at the HTTP boundary: a local server answers
 * their token endpoints, idp_a's user API and idp_c's key set, and an undici dispatcher routes
 * their host names to it, so the server's real client library (arctic) and its real fetches run.
 * The fake checks what the real providers check (idp_a's Basic credentials, idp_b's PKCE
 * verifier against the challenge, idp_c's ES256 client-secret JWT) and refuses otherwise.
 *
 * The browser's part (the consent page) is `authorize()`: it reads the authorization URL the
 * server redirected to and answers as the provider would redirect back. Tokens are stamped with
 * the test's clock at authorization, so moving the clock before the callback ages them.
 */

export type FakeIdp = 'idp_a' | 'idp_b' | 'idp_c';

export type FakeAccount = {
  /** The provider's account id (idp_a's are numbers, so use digits). */
  id: string;
  email: string | null;
  emailVerified?: boolean;
  name?: string | null;
};

/** Ways to spoil the ID token of one authorization (idp_b and idp_c). */
export type IdTokenTweaks = {
  aud?: string;
  iss?: string;
  nonce?: string;
  /** How long the token is valid after authorization (default 5 minutes). */
  lifetimeMs?: number;
  /** Sign with a key the provider does not publish, under its published kid or an unknown one. */
  signer?: 'unpublished-key' | 'unknown-kid';
};

export type Authorization = {
  /** Where the provider sends the browser back. */
  redirectUri: string;
  /** The callback's parameters (query for idp_a/b, form fields for idp_c). */
  params: Record<string, string>;
};

/** One request that reached the fake, with what it proved. */
export type Received = { host: string; method: string; path: string; verified?: string };

const HOSTS: Record<string, FakeIdp> = {
  'github.com': 'idp_a',
  'api.github.com': 'idp_a',
  'accounts.google.com': 'idp_b',
  'oauth2.googleapis.com': 'idp_b',
  'appleid.apple.com': 'idp_c',
};

const APPLE_ISSUER = 'https://appleid.apple.com';
const DEFAULT_LIFETIME_MS = 5 * 60_000;

type Grant = {
  idp: FakeIdp;
  account: FakeAccount;
  redirectUri: string;
  challenge?: string;
  nonce?: string;
  tweaks: IdTokenTweaks;
  authorizedAt: number;
};

type JsonReply = { status: number; body: unknown };

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const secret = () => randomBytes(16).toString('hex');
const rsaKey = () => generateKeyPairSync('rsa', { modulusLength: 2048 });

export class FakeProviders {
  readonly received: Received[] = [];
  /** How many times idp_c's key set was fetched. */
  jwksFetches = 0;

  readonly idpA = { clientId: `a-${secret()}`, clientSecret: secret() };
  readonly idpB = { clientId: `b-${secret()}.apps.example`, clientSecret: secret() };
  readonly idpC = {
    clientId: 'test.beckon.signin',
    teamId: 'TEAM123456',
    keyId: 'KEY1234567',
    // The key pair the provider issues to us: we keep the private half, it knows the public one.
    keys: generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  };
  private readonly signing = {
    idp_b: { kid: 'b-key-1', ...rsaKey() },
    idp_c: { kid: 'c-key-1', ...rsaKey() },
    unpublished: rsaKey(),
  };
  private readonly grants = new Map<string, Grant>();
  private readonly accessTokens = new Map<string, FakeAccount>();
  private server?: http.Server;
  private port = 0;

  constructor(private readonly clock: Clock) {}

  /** The environment that enables all three providers against this fake. */
  get env(): Record<string, string> {
    return {
      IDP_A_CLIENT_ID: this.idpA.clientId,
      IDP_A_CLIENT_SECRET: this.idpA.clientSecret,
      IDP_B_CLIENT_ID: this.idpB.clientId,
      IDP_B_CLIENT_SECRET: this.idpB.clientSecret,
      IDP_C_CLIENT_ID: this.idpC.clientId,
      IDP_C_TEAM_ID: this.idpC.teamId,
      IDP_C_KEY_ID: this.idpC.keyId,
      IDP_C_PRIVATE_KEY: this.idpC.keys.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    };
  }

  async start(): Promise<this> {
    this.server = http.createServer((request, response) => {
      void this.handle(request).then(
        ({ status, body }) => {
          response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        },
        (error: unknown) => {
          response
            .writeHead(500, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: String(error) }));
        },
      );
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    if (!address || typeof address === 'string') throw new Error('fake providers: no address');
    this.port = address.port;
    return this;
  }

  /**
   * Routes the providers' hosts to this fake for every fetch of this process (the test servers
   * run in it); any other host goes out unchanged. Returns the function that undoes it.
   */
  install(): () => Promise<void> {
    const previous = getGlobalDispatcher();
    const direct = buildConnector({});
    const agent = new Agent({
      connect: (options, callback) => {
        if (!(options.hostname in HOSTS)) return direct(options, callback);
        // Plain TCP even for https: the fake speaks HTTP/1.1 without TLS.
        const socket = net.connect(this.port, '127.0.0.1');
        socket.once('connect', () => callback(null, socket));
        socket.once('error', (error) => callback(error, null));
      },
    });
    setGlobalDispatcher(agent.compose(singleContentLength));
    return async () => {
      setGlobalDispatcher(previous);
      await agent.close();
    };
  }

  async close(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /**
   * The user signs in at the provider and consents: checks the authorization URL as the provider
   * would and returns where and with what the browser comes back.
   */
  authorize(authorizationUrl: string | URL, account: FakeAccount, tweaks: IdTokenTweaks = {}): Authorization {
    const url = new URL(authorizationUrl);
    const idp = this.idpOf(url);
    const q = (name: string) => url.searchParams.get(name) ?? undefined;
    const redirectUri = q('redirect_uri');
    const state = q('state');
    if (q('response_type') !== 'code' || !redirectUri || !state)
      throw new Error(`bad authorization URL: ${url}`);
    if (q('client_id') !== this.clientIdOf(idp)) throw new Error(`unknown client_id: ${q('client_id')}`);
    if (idp === 'idp_b' && (q('code_challenge_method') !== 'S256' || !q('code_challenge'))) {
      throw new Error('idp_b requires PKCE with S256');
    }
    if (idp === 'idp_c' && (q('response_mode') !== 'form_post' || !q('scope')?.includes('email'))) {
      throw new Error('idp_c asked for name or email must use response_mode=form_post');
    }
    const code = `code-${secret()}`;
    this.grants.set(code, {
      idp,
      account,
      redirectUri,
      challenge: q('code_challenge'),
      nonce: q('nonce'),
      tweaks,
      authorizedAt: this.clock().getTime(),
    });
    const params: Record<string, string> = { code, state };
    // idp_c sends the name once, beside the code, and never inside the ID token.
    if (idp === 'idp_c' && account.name) {
      const [firstName, ...rest] = account.name.split(' ');
      params.user = JSON.stringify({ name: { firstName, lastName: rest.join(' ') }, email: account.email });
    }
    return { redirectUri, params };
  }

  /** The user pressed "Cancel" at the provider. */
  deny(authorizationUrl: string | URL): Authorization {
    const url = new URL(authorizationUrl);
    const error = this.idpOf(url) === 'idp_c' ? 'user_cancelled_authorize' : 'access_denied';
    return {
      redirectUri: url.searchParams.get('redirect_uri') ?? '',
      params: { error, state: url.searchParams.get('state') ?? '' },
    };
  }

  private idpOf(url: URL): FakeIdp {
    const idp = HOSTS[url.hostname];
    if (!idp) throw new Error(`not a provider: ${url.hostname}`);
    return idp;
  }

  private clientIdOf(idp: FakeIdp): string {
    return { idp_a: this.idpA.clientId, idp_b: this.idpB.clientId, idp_c: this.idpC.clientId }[idp];
  }

  private async handle(request: http.IncomingMessage): Promise<JsonReply> {
    const host = (request.headers.host ?? '').replace(/:\d+$/, '');
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const entry: Received = { host, method: request.method ?? 'GET', path };
    this.received.push(entry);
    const route = `${entry.method} ${host}${path}`;
    const form =
      entry.method === 'POST' ? new URLSearchParams(await readBody(request)) : new URLSearchParams();
    switch (route) {
      case 'POST github.com/login/oauth/access_token':
        return this.idpAToken(request, form, entry);
      case 'GET api.github.com/user':
      case 'GET api.github.com/user/emails':
        return this.idpAApi(request, path);
      case 'POST oauth2.googleapis.com/token':
        return this.idpBToken(request, form, entry);
      case 'POST appleid.apple.com/auth/token':
        return this.idpCToken(form, entry);
      case 'GET appleid.apple.com/auth/keys':
        this.jwksFetches++;
        return { status: 200, body: { keys: [this.publishedKey()] } };
      default:
        return { status: 404, body: { error: 'not_found' } };
    }
  }

  /** A code is good once, for the provider it was issued by and the redirect URI it was asked with. */
  private redeem(idp: FakeIdp, form: URLSearchParams): Grant | null {
    const code = form.get('code') ?? '';
    const grant = this.grants.get(code);
    this.grants.delete(code);
    if (form.get('grant_type') !== 'authorization_code') return null;
    if (!grant || grant.idp !== idp || grant.redirectUri !== form.get('redirect_uri')) return null;
    return grant;
  }

  private basicCredentialsMatch(request: http.IncomingMessage, id: string, password: string): boolean {
    const expected = `Basic ${Buffer.from(`${id}:${password}`).toString('base64')}`;
    return request.headers.authorization === expected;
  }

  private idpAToken(request: http.IncomingMessage, form: URLSearchParams, entry: Received): JsonReply {
    // The code-hosting provider answers 200 with an error field.
    if (!this.basicCredentialsMatch(request, this.idpA.clientId, this.idpA.clientSecret)) {
      return { status: 200, body: { error: 'incorrect_client_credentials' } };
    }
    entry.verified = 'basic credentials';
    const grant = this.redeem('idp_a', form);
    if (!grant) return { status: 200, body: { error: 'bad_verification_code' } };
    const accessToken = `gho_${secret()}`;
    this.accessTokens.set(accessToken, grant.account);
    return {
      status: 200,
      body: { access_token: accessToken, token_type: 'bearer', scope: 'read:user,user:email' },
    };
  }

  private idpAApi(request: http.IncomingMessage, path: string): JsonReply {
    const token = /^(?:Bearer|token) (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    const account = this.accessTokens.get(token);
    if (!account) return { status: 401, body: { message: 'Bad credentials' } };
    if (!request.headers['user-agent']) return { status: 403, body: { message: 'User-Agent required' } };
    if (path === '/user') {
      const login = (account.email ?? `user${account.id}`).split('@')[0];
      return {
        status: 200,
        body: { id: Number(account.id), login, name: account.name ?? null, email: null },
      };
    }
    const emails = [{ email: `${account.id}+noreply@users.example`, primary: false, verified: true }];
    if (account.email)
      emails.push({ email: account.email, primary: true, verified: account.emailVerified ?? true });
    return { status: 200, body: emails };
  }

  private idpBToken(request: http.IncomingMessage, form: URLSearchParams, entry: Received): JsonReply {
    if (!this.basicCredentialsMatch(request, this.idpB.clientId, this.idpB.clientSecret)) {
      return { status: 401, body: { error: 'invalid_client' } };
    }
    const grant = this.redeem('idp_b', form);
    if (!grant) return { status: 400, body: { error: 'invalid_grant' } };
    const verifier = form.get('code_verifier') ?? '';
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    if (!grant.challenge || challenge !== grant.challenge) {
      return { status: 400, body: { error: 'invalid_grant', error_description: 'code_verifier mismatch' } };
    }
    entry.verified = 'basic credentials, PKCE verifier';
    const idToken = this.idToken('idp_b', grant, {
      iss: 'https://accounts.google.com',
      aud: this.idpB.clientId,
      email_verified: grant.account.emailVerified ?? true,
      name: grant.account.name ?? undefined,
    });
    return {
      status: 200,
      body: { access_token: `ya29.${secret()}`, expires_in: 3599, token_type: 'Bearer', id_token: idToken },
    };
  }

  private idpCToken(form: URLSearchParams, entry: Received): JsonReply {
    const problem = this.clientSecretProblem(form.get('client_id'), form.get('client_secret'));
    if (problem) return { status: 400, body: { error: 'invalid_client', error_description: problem } };
    entry.verified = 'ES256 client secret';
    const grant = this.redeem('idp_c', form);
    if (!grant) return { status: 400, body: { error: 'invalid_grant' } };
    const idToken = this.idToken('idp_c', grant, {
      iss: APPLE_ISSUER,
      aud: this.idpC.clientId,
      nonce: grant.nonce,
      nonce_supported: true,
      // This provider writes its booleans as strings.
      email_verified: String(grant.account.emailVerified ?? true),
    });
    return {
      status: 200,
      body: {
        access_token: secret(),
        token_type: 'Bearer',
        expires_in: 3600,
        refresh_token: secret(),
        id_token: idToken,
      },
    };
  }

  /** idp_c's client secret: an ES256 JWT by our key, issued by our team for our client. */
  private clientSecretProblem(clientId: string | null, clientSecret: string | null): string | null {
    if (clientId !== this.idpC.clientId) return 'unknown client_id';
    const [header = '', payload = '', signature = ''] = (clientSecret ?? '').split('.');
    const head = JSON.parse(Buffer.from(header, 'base64url').toString() || '{}') as Record<string, unknown>;
    if (head.alg !== 'ES256' || head.kid !== this.idpC.keyId) return 'wrong alg or kid';
    const valid = createVerify('SHA256')
      .update(`${header}.${payload}`)
      .verify(
        { key: this.idpC.keys.publicKey, dsaEncoding: 'ieee-p1363' },
        Buffer.from(signature, 'base64url'),
      );
    if (!valid) return 'bad signature';
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (claims.iss !== this.idpC.teamId || claims.sub !== clientId || !audiences.includes(APPLE_ISSUER)) {
      return 'wrong iss, sub or aud';
    }
    // arctic stamps the secret with the machine's time, not the test's clock.
    if (typeof claims.exp !== 'number' || claims.exp * 1000 <= Date.now()) return 'expired';
    return null;
  }

  private idToken(idp: 'idp_b' | 'idp_c', grant: Grant, claims: Record<string, unknown>): string {
    const { tweaks, account } = grant;
    const iat = Math.floor(grant.authorizedAt / 1000);
    const payload = {
      ...claims,
      ...(tweaks.aud ? { aud: tweaks.aud } : {}),
      ...(tweaks.iss ? { iss: tweaks.iss } : {}),
      ...(tweaks.nonce ? { nonce: tweaks.nonce } : {}),
      sub: account.id,
      email: account.email ?? undefined,
      iat,
      exp: iat + Math.floor((tweaks.lifetimeMs ?? DEFAULT_LIFETIME_MS) / 1000),
    };
    const published = this.signing[idp];
    const key = tweaks.signer ? this.signing.unpublished.privateKey : published.privateKey;
    const kid = tweaks.signer === 'unknown-kid' ? 'not-published' : published.kid;
    const input = `${b64({ alg: 'RS256', kid, typ: 'JWT' })}.${b64(payload)}`;
    return `${input}.${createSign('RSA-SHA256').update(input).sign(key).toString('base64url')}`;
  }

  /** idp_c's key set entry (idp_b's tokens come from its token endpoint and are not checked by key). */
  private publishedKey() {
    const { kid, publicKey } = this.signing.idp_c;
    return { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
  }
}

/** Starts the fake; pair with `install()` to route the providers' hosts to it. */
export const startFakeProviders = (clock: Clock) => new FakeProviders(clock).start();

/**
 * arctic sets Content-Length itself and Node 20's built-in fetch appends its own, so the header
 * arrives as "3, 3". Node's bundled dispatcher reads that leniently; the undici 7 Agent installed
 * here refuses it, so the duplicate is folded back before it gets there.
 */
const singleContentLength: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (options, handler) => {
  const headers = options.headers;
  if (!headers || Array.isArray(headers) || Symbol.iterator in headers) return dispatch(options, handler);
  const fixed: Record<string, string | string[] | undefined> = {
    ...(headers as Record<string, string | string[]>),
  };
  for (const [name, value] of Object.entries(fixed)) {
    if (name.toLowerCase() !== 'content-length' || typeof value !== 'string') continue;
    const lengths = new Set(value.split(',').map((v) => v.trim()));
    if (lengths.size === 1) fixed[name] = [...lengths][0];
  }
  return dispatch({ ...options, headers: fixed }, handler);
};

async function readBody(request: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
