import { createHmac } from 'node:crypto';
import http from 'node:http';

/**
 * One Web API call that reached the fake: its method, parameters (JSON ones parsed), token, and
 * the W3C trace context it carried (when the server traces).
 */
export type SlackCall = {
  method: string;
  params: Record<string, unknown>;
  token: string | null;
  traceparent?: string;
};

type Workspace = {
  id: string;
  name: string;
  channels: Map<string, { id: string; name: string }>;
  users: Map<string, string>;
};

/**
 * Slack's Web API faked at the HTTP boundary: a local server answering the methods Beckon calls
 * (oauth.v2.access, openid.connect.token, chat.postMessage / update / postEphemeral, views.open,
 * conversations.info / list, users.info, auth.revoke) as Slack does, so the server's real `@slack/web-api` client runs; SLACK_API_URL points
 * it here. Each workspace has its own channels and bot token; a token only reaches its own
 * workspace's channels. Calls are kept for the tests to inspect.
 */
export async function startFakeSlack(app: { clientId: string; clientSecret: string }) {
  const calls: SlackCall[] = [];
  const workspaces = new Map<string, Workspace>();
  const codes = new Map<string, string>();
  const tokens = new Map<string, string>();
  const failures = new Map<string, string[]>();
  let counter = 0;

  /** Sign in with Slack's codes: who signed in, and the nonce of the request they answered. */
  const signIns = new Map<string, { team: string; user: string; nonce: string }>();
  const signIn = (params: Record<string, unknown>) => {
    if (params.client_id !== app.clientId || params.client_secret !== app.clientSecret)
      return { ok: false, error: 'invalid_client_id' };
    const who = signIns.get(String(params.code));
    if (!who) return { ok: false, error: 'invalid_code' };
    signIns.delete(String(params.code));
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: 'https://slack.com',
      sub: who.user,
      aud: app.clientId,
      exp: now + 300,
      iat: now,
      nonce: who.nonce,
      'https://slack.com/team_id': who.team,
      'https://slack.com/user_id': who.user,
    };
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const idToken = `${part({ alg: 'RS256', typ: 'JWT' })}.${part(claims)}.fake-signature`;
    return { ok: true, access_token: `xoxp-${who.user}`, token_type: 'Bearer', id_token: idToken };
  };

  const answer = (method: string, params: Record<string, unknown>, token: string | null) => {
    const planned = failures.get(method)?.shift();
    if (planned) return { ok: false, error: planned };
    if (method === 'openid.connect.token') return signIn(params);
    if (method === 'oauth.v2.access') {
      const team = workspaces.get(codes.get(String(params.code)) ?? '');
      if (params.client_id !== app.clientId || params.client_secret !== app.clientSecret)
        return { ok: false, error: 'invalid_client_id' };
      if (!team) return { ok: false, error: 'invalid_code' };
      codes.delete(String(params.code));
      const accessToken = `xoxb-${team.id}-${++counter}`;
      tokens.set(accessToken, team.id);
      return {
        ok: true,
        access_token: accessToken,
        token_type: 'bot',
        scope: 'chat:write,channels:read,groups:read',
        bot_user_id: `UBOT${team.id}`,
        app_id: 'A0BECKON',
        team: { id: team.id, name: team.name },
      };
    }
    const team = workspaces.get(tokens.get(token ?? '') ?? '');
    if (!team) return { ok: false, error: 'invalid_auth' };
    const invalid = blockProblem(params);
    if (invalid)
      return {
        ok: false,
        error: method === 'views.open' ? 'invalid_arguments' : 'invalid_blocks',
        problem: invalid,
      };
    // A user id as the channel of a message is that person's DM with the app (a D… channel).
    const target = String(params.channel ?? '');
    if (method === 'chat.postMessage' && team.users.has(target) && !team.channels.has(`D${target}`))
      team.channels.set(`D${target}`, { id: `D${target}`, name: target });
    const channel = team.channels.get(team.users.has(target) ? `D${target}` : target);
    const ts = () => `${Math.floor(Date.now() / 1000)}.${String(++counter).padStart(6, '0')}`;
    switch (method) {
      case 'conversations.list':
        return { ok: true, channels: [...team.channels.values()].map((c) => ({ ...c, is_private: false })) };
      case 'conversations.info':
        return channel
          ? { ok: true, channel: { ...channel, is_private: false } }
          : { ok: false, error: 'channel_not_found' };
      case 'chat.postMessage':
        return channel
          ? { ok: true, channel: channel.id, ts: ts() }
          : { ok: false, error: 'channel_not_found' };
      case 'chat.update':
        return channel
          ? { ok: true, channel: channel.id, ts: params.ts }
          : { ok: false, error: 'channel_not_found' };
      case 'chat.postEphemeral':
        return channel ? { ok: true, message_ts: ts() } : { ok: false, error: 'channel_not_found' };
      case 'users.info': {
        const name = team.users.get(String(params.user ?? ''));
        return name
          ? {
              ok: true,
              user: {
                id: params.user,
                name,
                team_id: team.id,
                deleted: false,
                is_bot: false,
                profile: { display_name: name },
              },
            }
          : { ok: false, error: 'user_not_found' };
      }
      case 'auth.revoke':
        tokens.delete(token ?? '');
        return { ok: true, revoked: true };
      case 'views.open':
        return { ok: true, view: { id: `V${++counter}` } };
      default:
        return { ok: false, error: 'unknown_method' };
    }
  };

  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const method = (request.url ?? '').split('?')[0]?.replace(/^\/+/, '') ?? '';
      const params: Record<string, unknown> = {};
      const form = request.headers['content-type']?.includes('json')
        ? Object.entries(JSON.parse(body || '{}') as Record<string, unknown>)
        : [...new URLSearchParams(body)];
      for (const [key, value] of form) {
        params[key] = typeof value === 'string' && /^[[{]/.test(value) ? JSON.parse(value) : value;
      }
      const auth = request.headers.authorization;
      const token = auth?.startsWith('Bearer ') ? auth.slice(7) : null;
      const traceparent = request.headers.traceparent;
      calls.push({ method, params, token, ...(typeof traceparent === 'string' ? { traceparent } : {}) });
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(answer(method, params, token)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };

  return {
    url: `http://127.0.0.1:${address.port}/`,
    calls,
    /** A workspace with these channels; `installCode()` is what Slack hands back after an install. */
    workspace(
      id: string,
      name: string,
      channels: Record<string, string>,
      users: Record<string, string> = {},
    ) {
      workspaces.set(id, {
        id,
        name,
        channels: new Map(Object.entries(channels).map(([cid, cname]) => [cid, { id: cid, name: cname }])),
        users: new Map(Object.entries(users)),
      });
      return {
        installCode: () => {
          const code = `code-${id}-${++counter}`;
          codes.set(code, id);
          return code;
        },
      };
    },
    /**
     * What Slack hands back after `user` of workspace `team` signed in with Slack on the page of
     * `authorizeUrl` (Beckon's Sign in with Slack URL, whose nonce the ID token repeats).
     */
    signInCode(team: string, user: string, authorizeUrl: string) {
      const code = `signin-${team}-${user}-${++counter}`;
      const nonce = new URL(authorizeUrl).searchParams.get('nonce') ?? '';
      signIns.set(code, { team, user, nonce });
      return code;
    },
    /** The next call of `method` fails with Slack's `error`. */
    failNext(method: string, error: string) {
      failures.set(method, [...(failures.get(method) ?? []), error]);
    },
    of: (method: string) => calls.filter((c) => c.method === method),
    /** Waits until `count` calls of `method` have arrived (or fails after `timeoutMs`). */
    async waitFor(method: string, count: number, timeoutMs = 30_000) {
      await waitUntil(
        () => calls.filter((c) => c.method === method).length >= count,
        `${count} ${method} calls`,
        timeoutMs,
      );
      return calls.filter((c) => c.method === method);
    },
    /** Waits for the last call of `method` mentioning `text` (e.g. an item id) in its parameters. */
    async waitForMention(method: string, text: string, timeoutMs = 30_000) {
      const find = () =>
        calls.filter((c) => c.method === method && JSON.stringify(c.params).includes(text)).at(-1);
      await waitUntil(() => find() !== undefined, `a ${method} call about ${text}`, timeoutMs);
      return find() as SlackCall;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The Block Kit limits Slack enforces that Beckon's messages and modals come near: button and
 * option texts (75), button values (2,000), option values (150), a modal's title (24).
 */
function blockProblem(params: Record<string, unknown>): string | null {
  const texts: string[] = [];
  const walk = (node: unknown, key = ''): void => {
    if (Array.isArray(node)) {
      for (const n of node) walk(n, key);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const o = node as Record<string, unknown>;
    const text = (o.text as { text?: string } | undefined)?.text ?? '';
    if (o.type === 'button' && (text.length > 75 || String(o.value ?? '').length > 2000))
      texts.push(`button ${text}`);
    if (key === 'options' && (text.length > 75 || String(o.value ?? '').length > 150))
      texts.push(`option ${text}`);
    for (const [k, v] of Object.entries(o)) walk(v, k);
  };
  walk(params.blocks);
  const view = params.view as { title?: { text?: string }; blocks?: unknown } | undefined;
  if (view) {
    if ((view.title?.text ?? '').length > 24) texts.push('modal title');
    walk(view.blocks);
  }
  return texts.length ? texts.join(', ') : null;
}

async function waitUntil(done: () => boolean, what: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`expected ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export type FakeSlack = Awaited<ReturnType<typeof startFakeSlack>>;

/**
 * An interaction as Slack sends it: `payload=<json>` form-encoded, signed with the app's signing
 * secret (`v0=` HMAC-SHA256 of `v0:<timestamp>:<body>`), the timestamp in its header.
 */
export function signedInteraction(
  signingSecret: string,
  payload: object,
  timestamp = Math.floor(Date.now() / 1000),
) {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const signature = `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  return {
    body,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': signature,
    },
  };
}
