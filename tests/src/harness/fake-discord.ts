import { generateKeyPairSync, sign } from 'node:crypto';
import http from 'node:http';

/** One REST call that reached the fake: method, route, JSON body and the bot token. */
export type DiscordCall = {
  method: string;
  route: string;
  body: Record<string, unknown> | null;
  token: string;
};

/**
 * Discord's REST API faked at the HTTP boundary (DISCORD_API_URL points the server's client
 * here): GET /applications/@me, PUT /applications/<id>/commands, POST /users/@me/channels (a DM),
 * GET /channels/<id>,
 * POST /channels/<id>/messages, PATCH /channels/<id>/messages/<id>, answered as Discord does
 * (401 for an unknown token, 404 code 10003 for an unknown channel). The application has a real
 * Ed25519 key pair: `sign()` signs an interaction as Discord does.
 */
export async function startFakeDiscord() {
  const calls: DiscordCall[] = [];
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const rawPublic = publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex');
  const apps = new Map<string, { id: string; name: string }>();
  const channels = new Map<string, { id: string; name: string; type: number }>();
  let snowflake = 900000000000000000n;

  const answer = (method: string, route: string, token: string, body: Record<string, unknown> | null) => {
    const app = apps.get(token);
    if (!app) return { status: 401, body: { message: '401: Unauthorized', code: 0 } };
    if (method === 'GET' && route === '/applications/@me')
      return { status: 200, body: { id: app.id, name: app.name, verify_key: rawPublic } };
    if (method === 'PUT' && route === `/applications/${app.id}/commands`) return { status: 200, body };
    // A person's DM with the bot: a channel of type 1, the same one each time.
    if (method === 'POST' && route === '/users/@me/channels') {
      const dm = { id: `7${String(body?.recipient_id ?? '')}`, name: '', type: 1 };
      channels.set(dm.id, dm);
      return { status: 200, body: dm };
    }
    const [, channelId, , messageId] = /^\/channels\/(\d+)(\/messages(?:\/(\d+))?)?$/.exec(route) ?? [];
    const channel = channels.get(channelId ?? '');
    if (!channel) return { status: 404, body: { message: 'Unknown Channel', code: 10003 } };
    if (method === 'GET' && route === `/channels/${channel.id}`) return { status: 200, body: channel };
    if (method === 'POST' && route.endsWith('/messages'))
      return { status: 200, body: { id: String(++snowflake), channel_id: channel.id, ...body } };
    if (method === 'PATCH' && messageId)
      return { status: 200, body: { id: messageId, channel_id: channel.id, ...body } };
    return { status: 404, body: { message: '404: Not Found', code: 0 } };
  };

  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => {
      text += chunk;
    });
    request.on('end', () => {
      const route = (request.url ?? '').replace(/^\/api\/v10/, '').split('?')[0] ?? '';
      const token = (request.headers.authorization ?? '').replace(/^Bot /, '');
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
      const method = request.method ?? 'GET';
      calls.push({ method, route, body, token });
      const out = answer(method, route, token, body);
      response.writeHead(out.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(out.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };

  const mentioning = (method: string, text: string) =>
    calls.filter((c) => c.method === method && JSON.stringify(c).includes(text));

  return {
    url: `http://127.0.0.1:${port}/api/v10`,
    calls,
    publicKey: rawPublic,
    app(token: string, id: string, name: string) {
      apps.set(token, { id, name });
    },
    channel(id: string, name: string, type = 0) {
      channels.set(id, { id, name, type });
    },
    /** The headers Discord sends with `body`: its Ed25519 signature of timestamp + body. */
    sign(body: string, timestamp = Math.floor(Date.now() / 1000)) {
      const signature = sign(null, Buffer.from(`${timestamp}${body}`), privateKey).toString('hex');
      return { 'x-signature-ed25519': signature, 'x-signature-timestamp': String(timestamp) };
    },
    async waitForMention(method: string, text: string, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (mentioning(method, text).length === 0) {
        if (Date.now() > deadline) throw new Error(`expected a ${method} call about ${text}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return mentioning(method, text).at(-1) as DiscordCall;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type FakeDiscord = Awaited<ReturnType<typeof startFakeDiscord>>;
