import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Deps } from '../deps';
import { AppError } from '../errors';
import { collectingWrites } from '../realtime/sequencer';
import { registerCanonicalPath } from './canonical-path';
import { registerErrorHandling } from './errors';
import { requestSerializer } from './log-redaction';
import { registerMetrics } from './metrics';
import { registerHealth } from './ops';
import { registerRequestLog, requestLogOptions } from './request-log';
import { registerServerLimits, serverOptions } from './server-limits';
import { sendInSurfaceShape, surfaceOf } from './surface-replies';
import { closeUnusedConnections } from './unused-connections';

/** JSON bodies are limited to 1 MiB (decisions.md); attachments are base64 inside that limit. */
export const BODY_LIMIT = 1024 * 1024;

/** TRUST_PROXY as Fastify takes it (a hop count is a function of the hop in its types). */
export function trustProxyOption(
  value: boolean | number | string[],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof value === 'number' ? (_address, hop) => hop < value : value;
}

export type AppOptions = { name: 'resource' | 'auth' };

/** Routes that answer without the database (or say that it is down). */
const OPERATIONS = new Set(['/health', '/ready', '/metrics']);

/**
 * Where the other process serves a path that this one does not: a request sent to the wrong port
 * (both are on the README's first page) is told where to go instead of a bare 404.
 */
function servedElsewhere(env: Deps['env'], name: AppOptions['name']) {
  const [prefixes, base, other] =
    name === 'resource'
      ? [['/auth/', '/oauth/'], env.ISSUER_URL, 'authorization']
      : [['/api/', '/trpc/', '/mcp', '/webhooks/'], env.RESOURCE_URL, 'resource'];
  return (path: string) =>
    prefixes.some((prefix) => path.startsWith(prefix))
      ? `${path} is served by the ${other} process: ${new URL(path, base)}`
      : undefined;
}

/** A Fastify app with what both processes share: logging, errors, /health, /ready, /metrics. */
export function createBaseApp(deps: Deps, options: AppOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: deps.log.child(
      { process: options.name },
      { serializers: { req: requestSerializer } },
    ) as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT,
    // Path parameters such as setting keys are validated by the procedures (400, not Fastify's 414).
    routerOptions: { maxParamLength: 512 },
    // Only the proxies TRUST_PROXY names may set X-Forwarded-For (the client address rate limits key on).
    trustProxy: trustProxyOption(deps.env.TRUST_PROXY),
    ...serverOptions(deps.env),
    ...requestLogOptions,
  });
  registerRequestLog(app);
  // Routes outside the procedures that change items (inbound chat and mail answers): the
  // sequencer runs for what they wrote once they have answered (the procedures run it before).
  const sequencer = deps.sequencer;
  if (sequencer)
    app.addHook('onRequest', (request, reply, done) => {
      const orgs = new Set<string>();
      reply.raw.once('close', () => {
        if (orgs.size > 0)
          sequencer
            .settle(orgs)
            .catch((err) => request.log.warn({ err }, 'sequencing after a request failed'));
      });
      collectingWrites(orgs, done);
    });
  // JSON only: any other body type is a 415, not a string handed to a procedure. An empty JSON
  // body is no body (clients that always send the header may call action endpoints without one).
  app.removeContentTypeParser('text/plain');
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
    body.length === 0 ? done(null, undefined) : parseJson(request, body.toString(), done),
  );
  registerErrorHandling(app, BODY_LIMIT, servedElsewhere(deps.env, options.name));
  // Every answer is what its Content-Type says (JSON, never sniffed as HTML or script), those
  // written past Fastify included (MCP, the authorization server): set on the raw response first.
  app.addHook('onRequest', (_request, reply, done) => {
    reply.raw.setHeader('x-content-type-options', 'nosniff');
    done();
  });
  registerCanonicalPath(app);
  registerServerLimits(app, deps.env);
  closeUnusedConnections(app);
  // While the database is known to be down every route but the operations ones answers 503 at
  // once, as the procedures do (database-watch.ts): streams, downloads, inbound webhooks too.
  const watch = deps.database;
  if (watch) {
    app.addHook('onRequest', async (request, reply) => {
      if (watch.isDown && !OPERATIONS.has(request.routeOptions.url ?? '')) {
        return sendInSurfaceShape(request, reply, AppError.databaseUnavailable(), surfaceOf(request.url));
      }
    });
  }
  registerHealth(app, deps.sql, deps.database);
  registerMetrics(app, {
    sql: deps.sql,
    applicationName: `beckon-${options.name}`,
    poolMax: deps.env.DATABASE_POOL_MAX,
    jobs: options.name === 'resource',
    ...(options.name === 'resource' ? { streams: () => deps.events?.subscriberCount ?? 0 } : {}),
    ...(deps.metrics ? { domain: deps.metrics.registry } : {}),
  });
  return app;
}
