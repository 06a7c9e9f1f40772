import { MCP_MAX_BATCH } from '@beckon/server/http/api-rate-limit';
import { SIGN_IN_LIMITED_ROUTES } from '@beckon/server/http/sign-in-rate-limit';
import { TRPC_MAX_BATCH } from '@beckon/server/http/surface-replies';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';
import { inPool, type Side, targets } from './targets';

let server: TestServer;
let f: Factories;

const API_LIMIT = 8;
beforeAll(async () => {
  server = await startTestServer({
    env: { RATE_LIMIT_API: `${API_LIMIT}/1h`, RATE_LIMIT_SIGN_IN: '3/15m', RATE_LIMIT_SYNC_MS: '20' },
  });
  f = new Factories(server.database.db);
});
afterAll(() => server?.close());

type Route = { side: Side; method: string; path: string };

/** `%XX` of a character, in upper or lower case hex. */
const percentEscape = (c: string, lower = false) => {
  const hex = c.charCodeAt(0).toString(16).padStart(2, '0');
  return `%${lower ? hex : hex.toUpperCase()}`;
};
const isParam = (segment: string) => segment.startsWith(':') || segment.startsWith('{');

/**
 * The ways to write a path the router decodes back to it: each fixed segment with its first
 * character escaped, with its dots escaped (tRPC's procedure names), and the whole path escaped
 * character by character in lower-case hex.
 */
function encodedVariants(path: string): string[] {
  const segments = path.split('/');
  const variants = new Set<string>();
  segments.forEach((segment, i) => {
    if (!segment || isParam(segment)) return;
    const first = [...segments];
    first[i] = percentEscape(segment[0]!) + segment.slice(1);
    variants.add(first.join('/'));
    if (segment.includes('.')) {
      const dots = [...segments];
      dots[i] = segment.replaceAll('.', percentEscape('.'));
      variants.add(dots.join('/'));
    }
  });
  variants.add(
    segments
      .map((s) =>
        isParam(s) ? s : [...s].map((c) => (/[A-Za-z0-9._~-]/.test(c) ? percentEscape(c, true) : c)).join(''),
      )
      .join('/'),
  );
  return [...variants];
}

/** Placeholders for path parameters (the request never reaches a handler). */
const fill = (path: string) => path.replace(/\{\w+\}|:\w+/g, '0195f4a2-0000-7000-8000-000000000000');

/**
 * Every route a limit keys on, from the route tables: the procedures of both routers (REST and
 * tRPC), the sign-in limits' routes, and the resource process's hand-written API routes.
 */
function limitedRoutes(): Route[] {
  const routes: Route[] = [];
  for (const side of ['resource', 'auth'] as const) {
    const rest = side === 'resource' ? '/api' : '/auth';
    const trpc = side === 'resource' ? '/trpc' : '/auth/trpc';
    for (const t of targets(side)) {
      routes.push({ side, method: t.method, path: `${rest}${t.route}` });
      routes.push({ side, method: t.type === 'query' ? 'GET' : 'POST', path: `${trpc}/${t.path}` });
    }
  }
  for (const key of Object.keys(SIGN_IN_LIMITED_ROUTES)) {
    const [method, path] = key.split(' ') as [string, string];
    routes.push({ side: 'auth', method, path });
  }
  routes.push(
    { side: 'resource', method: 'POST', path: '/mcp' },
    { side: 'resource', method: 'GET', path: '/mcp/sse' },
    { side: 'resource', method: 'GET', path: '/api/ws' },
    { side: 'resource', method: 'GET', path: '/api/items/:id/attachments/:aid/download' },
  );
  return routes;
}

const client = (side: Side, token: string | null): HttpClient =>
  (side === 'resource' ? server.resource : server.auth).as(token);

describe('limits key on what the router dispatches', () => {
  it('refuses (400) every percent-encoded variant of every limited route before anything runs', async () => {
    const { token, org } = await f.account();
    const routes = limitedRoutes();
    expect(routes.length).toBeGreaterThan(100);
    const requests = routes.flatMap((route) =>
      encodedVariants(route.path).map((variant) => ({ ...route, variant: fill(variant) })),
    );
    const answers = await inPool(requests, 8, async (r) => {
      const res = await client(r.side, token).request(r.method, r.variant, {
        ...(r.method === 'GET' || r.method === 'DELETE'
          ? {}
          : { body: { title: 'x', email: 'a@example.com' } }),
      });
      return { request: `${r.method} ${r.variant}`, status: res.status, body: res.body };
    });
    const escaped = answers.filter((a) => a.status !== 400);
    expect(escaped).toEqual([]);
    for (const a of answers) {
      expect(a.body).toEqual({
        error: 'invalid request',
        fields: { path: 'must not percent-encode letters, digits or -._~' },
      });
    }
    // None ran: no item was made, no sign-in link was mailed, and the credential's count is
    // untouched (a refused request is not dispatched, so it is not counted either).
    const items = await server.database.sql`select 1 from items where org_id = ${org.id}`;
    expect(items).toHaveLength(0);
    const links = await server.database.sql`select 1 from magic_link_tokens`;
    expect(links).toHaveLength(0);
    const me = await server.resource.as(token).get('/api/me');
    expect(me.status).toBe(200);
    expect(me.headers.get('ratelimit')).toMatch(new RegExp(`^"api";r=${API_LIMIT - 1};`));
  });

  it('counts each call of a tRPC batch as tRPC decodes it (escaped commas too), at most 10 calls', async () => {
    const { token } = await f.account();
    const api = server.resource.as(token);
    const calls = (n: number, comma: string) =>
      Array.from({ length: n }, () => 'identity.whoAmI').join(comma);
    const three = await api.get(`/trpc/${calls(3, '%2C')}?batch=1&input={}`);
    expect(three.status).toBe(200);
    expect(three.body).toHaveLength(3);
    expect(three.headers.get('ratelimit')).toMatch(new RegExp(`^"api";r=${API_LIMIT - 3};`));
    // A batch past the maximum is refused by tRPC before any call runs, and counts as one request.
    const tooMany = await api.get(`/trpc/${calls(TRPC_MAX_BATCH + 1, ',')}?batch=1&input={}`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.headers.get('ratelimit')).toMatch(new RegExp(`^"api";r=${API_LIMIT - 4};`));
  });

  it('counts each message of a JSON-RPC batch on /mcp, and refuses batches where the revision has none', async () => {
    const { org, user } = await f.account();
    const key = await f.apiKey(org.id, user.id);
    const mcp = server.resource.as(key.token);
    const headers = { accept: 'application/json, text/event-stream' };
    const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
    const batch = await mcp.post('/mcp', [ping(1), ping(2), ping(3), ping(4)], {
      headers: { ...headers, 'mcp-protocol-version': '2025-03-26' },
    });
    expect(batch.status).toBe(200);
    const me = await mcp.get('/api/me');
    expect(me.headers.get('ratelimit')).toMatch(new RegExp(`^"api";r=${API_LIMIT - 5};`));

    const big = Array.from({ length: MCP_MAX_BATCH + 1 }, (_, i) => ping(i));
    const tooBig = await mcp.post('/mcp', big, {
      headers: { ...headers, 'mcp-protocol-version': '2025-03-26' },
    });
    expect(tooBig.status).toBe(400);
    for (const revision of ['2025-06-18', '2025-11-25']) {
      const refused = await mcp.post('/mcp', [ping(1)], {
        headers: { ...headers, 'mcp-protocol-version': revision },
      });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32602 } });
    }
    // Three more messages reach the limit (5 + 3 = 8); the fourth is refused.
    const last = await mcp.post('/mcp', [ping(5), ping(6), ping(7), ping(8)], {
      headers: { ...headers, 'mcp-protocol-version': '2025-03-26' },
    });
    expect(last.status).toBe(429);
    expect(last.headers.get('retry-after')).not.toBeNull();
  });

  it('limits a credential on the authorization process too, on the same count as the resource process', async () => {
    const { token } = await f.account();
    const account = server.auth.as(token);
    for (let i = 1; i <= API_LIMIT / 2; i++) {
      const me = await account.get('/auth/me');
      expect(me.status).toBe(200);
      expect(me.headers.get('ratelimit')).toMatch(new RegExp(`^"api";r=${API_LIMIT - i};`));
    }
    for (let i = 0; i < API_LIMIT / 2; i++) {
      expect((await server.resource.as(token).get('/api/me')).status).toBe(200);
    }
    // Each process learns the other's count at its next sync (every 20 ms here): a request or two
    // may pass meanwhile, no more.
    let accepted = 0;
    const elsewhere = { org_id: '0195f4a2-0000-7000-8000-000000000000' };
    await expect
      .poll(async () => {
        const status = (await account.post('/auth/switch-org', elsewhere)).status;
        if (status !== 429) accepted += 1;
        return status;
      })
      .toBe(429);
    expect(accepted).toBeLessThanOrEqual(2);
    // The sign-in routes keep their own per-address limit, untouched by a credential's count.
    const link = await server.auth.as(null).post('/auth/magic-link', { email: 'someone@example.com' });
    expect(link.headers.get('ratelimit-policy')).toBe('"sign_in";q=3;w=900');
  });
});
