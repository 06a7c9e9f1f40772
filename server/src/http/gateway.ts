import { existsSync } from 'node:fs';
import path from 'node:path';
import proxy, { type FastifyHttpProxyOptions } from '@fastify/http-proxy';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import type { Logger } from '../log';
import { requestSerializer } from './log-redaction';

/** Paths served by the authorization process; everything else of the API goes to the resource one. */
const AUTH_PREFIXES = ['/auth', '/oauth', '/.well-known'];
/** The resource process's paths, operations included: a probe through the one origin sees it. */
const RESOURCE_PREFIXES = ['/api', '/trpc', '/mcp', '/webhooks', '/health', '/ready', '/metrics'];

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Beckon</title>
<body style="font-family:system-ui;max-width:40rem;margin:4rem auto;padding:0 1rem">
<h1>Beckon</h1><p>The API is running, but the dashboard has not been built.
Run <code>pnpm start</code> (it builds it) or <code>pnpm --filter @beckon/web build</code>.</p></body></html>`;

/**
 * The one origin people open (APP_URL, port 5173 by default): the built dashboard, with /auth,
 * /oauth and /.well-known proxied to the authorization process and /api (WebSocket included),
 * /trpc, /mcp, /webhooks and the operations endpoints (/health, /ready, /metrics) to the resource
 * process. Unknown paths get the dashboard's index.html, so its
 * client-side routes (e.g. /verify, /invite/<code>, /items/<id>) load on refresh.
 */
export async function buildGateway(
  log: Logger,
  upstreams: { resource: string; auth: string },
  webDist: string,
): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: log.child(
      { process: 'gateway' },
      { serializers: { req: requestSerializer } },
    ) as FastifyBaseLogger,
    trustProxy: true,
  });
  // A process that is starting or gone is a 503 in the API's error shape, not a proxy stack trace.
  const replyOptions: FastifyHttpProxyOptions['replyOptions'] = {
    // (reply-from has logged the cause already.)
    onError: (reply) => {
      reply.code(503).header('retry-after', '1').send({ error: 'service unavailable' });
    },
  };
  for (const prefix of AUTH_PREFIXES) {
    await app.register(proxy, { upstream: upstreams.auth, prefix, rewritePrefix: prefix, replyOptions });
  }
  for (const prefix of RESOURCE_PREFIXES) {
    await app.register(proxy, {
      upstream: upstreams.resource,
      prefix,
      rewritePrefix: prefix,
      replyOptions,
      websocket: prefix === '/api',
    });
  }
  const index = path.join(webDist, 'index.html');
  const built = existsSync(index);
  if (built) await app.register(fastifyStatic, { root: webDist, wildcard: false, index: 'index.html' });
  const dashboard = (reply: FastifyReply) =>
    built
      ? reply.header('cache-control', 'no-cache').sendFile('index.html')
      : reply.type('text/html; charset=utf-8').send(NOT_BUILT);
  // The dashboard's own page under /auth: external sign-in lands on /auth/callback#token=….
  app.get('/auth/callback', (_request, reply) => dashboard(reply));
  app.setNotFoundHandler((request, reply) =>
    request.method === 'GET' ? dashboard(reply) : reply.code(404).send({ error: 'not found' }),
  );
  return app;
}
