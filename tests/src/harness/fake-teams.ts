import http from 'node:http';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/** One Bot Connector call that reached the fake: method, path (decoded), JSON body, bearer token. */
export type TeamsCall = {
  method: string;
  path: string;
  body: Record<string, unknown> | null;
  token: string;
};

/** How `sign()` forges or spoils a token, for the refusals. */
export type SignOptions = {
  audience?: string;
  /** Seconds from now the token expires at (negative: already expired). */
  expiresIn?: number;
  /** Signed with a key Bot Framework does not publish. */
  foreignKey?: boolean;
  serviceUrl?: string;
  issuer?: string;
};

/**
 * Microsoft's side of a Teams bot faked at the HTTP boundary, one local server for all three:
 * Bot Framework's OpenID metadata (`/openid`, naming `/keys`: one RS256 key endorsed for
 * `msteams`), Microsoft Entra's token endpoint (`/login/<tenant>/oauth2/v2.0/token`, client
 * credentials; an unknown app id or secret is a 401 `invalid_client`), and the Bot Connector at
 * `/connector` (send, reply to and replace activities; a call without a token the fake issued is
 * a 401). `sign()` makes the JWT Bot Framework sends with an activity, with the same key.
 */
export async function startFakeTeams() {
  const calls: TeamsCall[] = [];
  const apps = new Map<string, string>();
  const issued = new Set<string>();
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const foreign = await generateKeyPair('RS256');
  const kid = 'fake-bot-framework-key';
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, use: 'sig', alg: 'RS256' };
  let activityId = 1000;

  const answer = (method: string, path: string, token: string, raw: string, base: string) => {
    if (method === 'GET' && path === '/openid')
      return { status: 200, body: { issuer: 'https://api.botframework.com', jwks_uri: `${base}/keys` } };
    if (method === 'GET' && path === '/keys')
      return { status: 200, body: { keys: [{ ...jwk, endorsements: ['msteams', 'webchat'] }] } };
    if (method === 'POST' && /^\/login\/[^/]+\/oauth2\/v2\.0\/token$/.test(path)) {
      const form = new URLSearchParams(raw);
      const id = form.get('client_id') ?? '';
      if (form.get('grant_type') !== 'client_credentials' || apps.get(id) !== form.get('client_secret'))
        return {
          status: 401,
          body: { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret' },
        };
      const access = `token-${id}-${issued.size + 1}`;
      issued.add(access);
      return { status: 200, body: { token_type: 'Bearer', expires_in: 3599, access_token: access } };
    }
    if (!path.startsWith('/connector/v3/conversations/'))
      return { status: 404, body: { error: 'not found' } };
    if (!issued.has(token))
      return { status: 401, body: { message: 'Authorization has been denied for this request.' } };
    const [, , activity] = /^\/connector\/v3\/conversations\/[^/]+\/activities(\/([^/]+))?$/.exec(path) ?? [];
    if (method === 'POST')
      return { status: 201, body: { id: activity ? `reply-${++activityId}` : `act-${++activityId}` } };
    if (method === 'PUT' && activity) return { status: 200, body: { id: decodeURIComponent(activity) } };
    return { status: 405, body: { error: 'method not allowed' } };
  };

  const server = http.createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk) => {
      raw += chunk;
    });
    request.on('end', () => {
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const path = (request.url ?? '').split('?')[0] ?? '';
      const token = (request.headers.authorization ?? '').replace(/^Bearer /, '');
      const method = request.method ?? 'GET';
      const json = request.headers['content-type']?.includes('json') && raw;
      if (path.startsWith('/connector/'))
        calls.push({
          method,
          path: decodeURIComponent(path),
          body: json ? (JSON.parse(raw) as Record<string, unknown>) : null,
          token,
        });
      const out = answer(method, path, token, raw, base);
      response.writeHead(out.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(out.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const serviceUrl = `${url}/connector/`;

  const mentioning = (method: string, text: string) =>
    calls.filter((c) => c.method === method && JSON.stringify(c).includes(text));

  return {
    url,
    openIdUrl: `${url}/openid`,
    loginUrl: `${url}/login`,
    serviceUrl,
    calls,
    /** A bot registration Entra knows: its app id and client secret. */
    app(appId: string, secret: string) {
      apps.set(appId, secret);
    },
    /** The JWT Bot Framework sends with an activity to the bot `appId` (or spoiled as told). */
    async sign(appId: string, options: SignOptions = {}) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ serviceUrl: options.serviceUrl ?? serviceUrl })
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
        .setIssuer(options.issuer ?? 'https://api.botframework.com')
        .setAudience(options.audience ?? appId)
        .setIssuedAt(now - 60)
        .setNotBefore(now - 60)
        .setExpirationTime(now + (options.expiresIn ?? 3600))
        .sign(options.foreignKey ? foreign.privateKey : privateKey);
    },
    async waitForMention(method: string, text: string, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (mentioning(method, text).length === 0) {
        if (Date.now() > deadline) throw new Error(`expected a ${method} call about ${text}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return mentioning(method, text).at(-1) as TeamsCall;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type FakeTeams = Awaited<ReturnType<typeof startFakeTeams>>;
