import { existsSync } from 'node:fs';
import path from 'node:path';
import proxy, { type FastifyHttpProxyOptions } from '@fastify/http-proxy';
import fastifyStatic from '@fastify/static';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Logger } from '../log';
import { trustProxyOption } from './common';
import { redactProxySource, requestSerializer } from './log-redaction';
import { registerRequestLog, requestLogOptions } from './request-log';
import { registerServerLimits, type ServerLimits, serverOptions } from './server-limits';
import { closeUnusedConnections } from './unused-connections';
import { UpstreamRotation } from './upstreams';

/** Paths served by the authorization process; everything else of the API goes to the resource one. */
export const AUTH_PREFIXES = ['/auth', '/oauth', '/.well-known'];
/**
 * The resource process's paths, /health and /ready included (a probe through the one origin sees
 * it). Not /metrics: it tells about the deployment and stays on the processes' own ports.
 */
export const RESOURCE_PREFIXES = ['/api', '/trpc', '/mcp', '/webhooks', '/health', '/ready'];

/**
 * The dashboard's pages and files: scripts only from this origin (the session token lives in
 * localStorage, so an injected script must find no way in), never framed, no referrer (sign-in
 * links carry tokens in their URL). Images only from here or inline: a remote image in an item's
 * Markdown would tell its sender who opened the item and when (the dashboard shows it as a link).
 */
const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function dashboardSecurityHeaders(appUrl: string): Record<string, string> {
  return {
    'content-security-policy': DASHBOARD_CSP,
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'cross-origin-opener-policy': 'same-origin',
    // Only over https: a browser remembers it for the whole host for a year.
    ...(appUrl.startsWith('https:')
      ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' }
      : {}),
  };
}

export type GatewayOptions = {
  /** APP_URL: HSTS is sent when it is https. */
  appUrl?: string;
  /** TRUST_PROXY: who may tell the gateway the client's address. */
  trustProxy?: boolean | number | string[];
  /** The connection limits of the processes (server-limits.ts); Fastify's defaults without. */
  limits?: ServerLimits;
};

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Beckon</title>
<body style="font-family:system-ui;max-width:40rem;margin:4rem auto;padding:0 1rem">
<h1>Beckon</h1><p>The API is running, but the dashboard has not been built.
Run <code>pnpm start</code> (it builds it) or <code>pnpm --filter @beckon/web build</code>.</p></body></html>`;

/**
 * The one origin people open (APP_URL, port 5173 by default): the built dashboard, with /auth,
 * /oauth and /.well-known proxied to the authorization process and /api (WebSocket included),
 * /trpc, /mcp, /webhooks and the operations endpoints (/health, /ready, /metrics) to the resource
 * process. Unknown paths get the dashboard's index.html (files excepted: a 404), so its
 * client-side routes (e.g. /verify, /invite/<code>, /items/<id>) load on refresh.
 * Several resource processes are taken in turn (UpstreamRotation: one that cannot be reached
 * sits out for a moment).
 */
export async function buildGateway(
  log: Logger,
  upstreams: { resource: string | readonly string[]; auth: string },
  webDist: string,
  options: GatewayOptions = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: log.child(
      { process: 'gateway' },
      // `source`: the upstream URL the proxy logs for each request it forwards.
      { serializers: { req: requestSerializer, source: redactProxySource } },
    ) as FastifyBaseLogger,
    trustProxy: trustProxyOption(options.trustProxy ?? ['loopback']),
    ...(options.limits ? serverOptions(options.limits) : {}),
    ...requestLogOptions,
  });
  if (options.limits) registerServerLimits(app, options.limits);
  closeUnusedConnections(app);
  // Quiet at info: its line per request is debug (the processes log theirs, same request id).
  registerRequestLog(app, 'debug');
  const securityHeaders = dashboardSecurityHeaders(options.appUrl ?? '');
  // The processes trust the gateway (a loopback peer) for the client's address, host and scheme:
  // it sends the ones it determined, replacing whatever X-Forwarded-* the client sent (which would
  // be believed; the authorization server builds its discovery URLs from the host and scheme).
  const replyOptions: FastifyHttpProxyOptions['replyOptions'] = {
    rewriteRequestHeaders: (request, headers) => ({
      ...headers,
      ...forwardedHeaders(request),
      'x-request-id': request.id,
    }),
    // A process that is starting or gone is a 503 in the API's error shape, not a proxy stack
    // trace (reply-from has logged the cause already).
    onError: (reply) => {
      reply
        .code(503)
        .header('retry-after', '1')
        .send({ error: 'service unavailable', code: 'service_unavailable' });
    },
  };
  // WebSocket upgrades too (http-proxy reads this option; its typings do not list it).
  const wsClientOptions = {
    rewriteRequestHeaders: (headers: Record<string, string>, request: FastifyRequest) => ({
      ...headers,
      ...(request.headers.cookie ? { cookie: request.headers.cookie } : {}),
      ...forwardedHeaders(request),
      'x-request-id': request.id,
    }),
  };
  if (options.appUrl?.startsWith('https:')) {
    const hsts = securityHeaders['strict-transport-security'] ?? '';
    app.addHook('onSend', async (_request, reply) => {
      reply.header('strict-transport-security', hsts);
    });
  }
  for (const prefix of AUTH_PREFIXES) {
    await app.register(proxy, {
      upstream: upstreams.auth,
      prefix,
      rewritePrefix: prefix,
      replyOptions,
      // The proxy's own lines per request ("fetching from remote server", "response received").
      logLevel: 'warn',
    });
  }
  const resource = resourceUpstream(upstreams.resource, replyOptions);
  for (const prefix of RESOURCE_PREFIXES) {
    await app.register(proxy, {
      upstream: resource.upstream,
      prefix,
      rewritePrefix: prefix,
      replyOptions: resource.replyOptions,
      logLevel: 'warn',
      websocket: prefix === '/api',
      ...(prefix === '/api'
        ? { wsClientOptions: wsClientOptions as FastifyHttpProxyOptions['wsClientOptions'] }
        : {}),
    });
  }
  app.get('/metrics', (_request, reply) => reply.code(404).send({ error: 'not found', code: 'not_found' }));
  const index = path.join(webDist, 'index.html');
  const built = existsSync(index);
  if (built) {
    await app.register(fastifyStatic, {
      root: webDist,
      wildcard: false,
      index: 'index.html',
      setHeaders: (reply) => {
        reply.headers(securityHeaders);
      },
    });
  }
  const dashboard = (reply: FastifyReply) =>
    built
      ? reply.headers(securityHeaders).header('cache-control', 'no-cache').sendFile('index.html')
      : reply.headers(securityHeaders).type('text/html; charset=utf-8').send(NOT_BUILT);
  // The dashboard's own page under /auth: external sign-in lands on /auth/callback#token=….
  app.get('/auth/callback', (_request, reply) => dashboard(reply));
  // A file the build does not have is a 404, not the page: a stale tab asking for the scripts of
  // an earlier build would otherwise run HTML as JavaScript.
  app.setNotFoundHandler((request, reply) =>
    request.method === 'GET' && !isFilePath(request.url)
      ? dashboard(reply)
      : reply.code(404).send({ error: 'not found', code: 'not_found' }),
  );
  return app;
}

/** A path of the build's files (its assets, or a name with an extension), never a page's. */
const isFilePath = (url: string) => {
  const pathname = url.split('?')[0] ?? '';
  return pathname.startsWith('/assets/') || /\.[a-z0-9]{1,11}$/i.test(pathname);
};

/** What the gateway tells the processes about the client, as it determined it under TRUST_PROXY. */
const forwardedHeaders = (request: Pick<FastifyRequest, 'ip' | 'host' | 'protocol'>) => ({
  'x-forwarded-for': request.ip,
  'x-forwarded-host': request.host,
  'x-forwarded-proto': request.protocol,
});

type ReplyOptions = NonNullable<FastifyHttpProxyOptions['replyOptions']>;

/**
 * One resource process: a fixed upstream. Several: none fixed, each request (WebSocket upgrades
 * included: the proxy asks `getUpstream` for them too) goes to the next in turn, and a failure
 * to reach one makes it rest.
 */
function resourceUpstream(urls: string | readonly string[], replyOptions: ReplyOptions) {
  const list = typeof urls === 'string' ? [urls] : urls;
  if (list.length === 1) return { upstream: list[0] ?? '', replyOptions };
  const rotation = new UpstreamRotation(list);
  const chosen = new WeakMap<object, string>();
  const rotating: ReplyOptions = {
    ...replyOptions,
    getUpstream: (request) => {
      const url = rotation.pick();
      chosen.set(request, url);
      return url;
    },
    onError: (reply, error) => {
      const url = chosen.get(reply.request);
      if (url) rotation.failed(url);
      replyOptions.onError?.(reply, error);
    },
  };
  return { upstream: '', replyOptions: rotating };
}
