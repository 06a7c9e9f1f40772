import { existsSync } from 'node:fs';
import path from 'node:path';
import proxy from '@fastify/http-proxy';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from '../log';

/** Paths served by the authorization process; everything else of the API goes to the resource one. */
const AUTH_PREFIXES = ['/auth', '/oauth', '/.well-known'];
const RESOURCE_PREFIXES = ['/api', '/trpc', '/mcp'];

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Beckon</title>
<body style="font-family:system-ui;max-width:40rem;margin:4rem auto;padding:0 1rem">
<h1>Beckon</h1><p>The API is running, but the dashboard has not been built.
Run <code>pnpm start</code> (it builds it) or <code>pnpm --filter @beckon/web build</code>.</p></body></html>`;

/**
 * The one origin people open (APP_URL, port 5173 by default): the built dashboard, with /auth,
 * /oauth and /.well-known proxied to the authorization process and /api (WebSocket included),
 * /trpc and /mcp to the resource process. Unknown paths get the dashboard's index.html, so its
 * client-side routes (e.g. /verify, /invite/<code>, /items/<id>) load on refresh.
 */
export async function buildGateway(
  log: Logger,
  upstreams: { resource: string; auth: string },
  webDist: string,
): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: log.child({ process: 'gateway' }) as FastifyBaseLogger,
    trustProxy: true,
  });
  for (const prefix of AUTH_PREFIXES) {
    await app.register(proxy, { upstream: upstreams.auth, prefix, rewritePrefix: prefix });
  }
  for (const prefix of RESOURCE_PREFIXES) {
    await app.register(proxy, {
      upstream: upstreams.resource,
      prefix,
      rewritePrefix: prefix,
      websocket: prefix === '/api',
    });
  }
  app.get('/health', async () => 'ok');
  const index = path.join(webDist, 'index.html');
  if (existsSync(index)) {
    await app.register(fastifyStatic, { root: webDist, wildcard: false, index: 'index.html' });
    app.setNotFoundHandler((request, reply) => {
      if (request.method !== 'GET') return reply.code(404).send({ error: 'not found' });
      return reply.header('cache-control', 'no-cache').sendFile('index.html');
    });
  } else {
    app.setNotFoundHandler((request, reply) =>
      request.method === 'GET'
        ? reply.type('text/html; charset=utf-8').send(NOT_BUILT)
        : reply.code(404).send({ error: 'not found' }),
    );
  }
  return app;
}
