import type { AnyTRPCRouter } from '@trpc/server';
import { type FastifyTRPCPluginOptions, fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import type { FastifyInstance } from 'fastify';
import { fastifyTRPCOpenApiPlugin } from 'trpc-to-openapi';
import type { Deps } from '../deps';
import { toAppError } from '../errors';
import { appRouter } from '../trpc/app-router';
import { contextFactory } from '../trpc/context';
import { createBaseApp } from './common';
import { captureAppError } from './errors';
import { openApiDocument, routeTemplates } from './openapi';

/** The resource process (port 3000): /api (REST from the tRPC procedures), /trpc, operations. */
export async function buildResourceApp(
  deps: Deps,
  router: AnyTRPCRouter = appRouter,
): Promise<FastifyInstance> {
  const document = openApiDocument(router, deps.env);
  const templates = routeTemplates(document, '/api');
  const app = createBaseApp(deps, {
    name: 'resource',
    routeOf: (request) => {
      const path = request.originalUrl.split('?')[0] ?? '';
      return templates.find(([pattern]) => pattern.test(path))?.[1];
    },
  });
  const createContext = contextFactory(deps);

  app.get('/api/openapi.json', async () => document);
  acceptBodilessActions(app);

  await app.register(fastifyTRPCOpenApiPlugin<AnyTRPCRouter>, {
    basePath: '/api',
    router,
    createContext,
    responseMeta: ({ errors }) => (errors[0] ? { status: toAppError(errors[0]).status } : {}),
    onError: ({ error, req }) => {
      captureAppError(req, error, app.log);
    },
  });

  await app.register(fastifyTRPCPlugin, {
    prefix: '/trpc',
    trpcOptions: {
      router,
      createContext,
      responseMeta: ({ errors }) => (errors[0] ? { status: toAppError(errors[0]).status } : {}),
      onError: ({ error }) => {
        if (toAppError(error).status >= 500) app.log.error({ err: error }, 'procedure failed');
      },
    } satisfies FastifyTRPCPluginOptions<AnyTRPCRouter>['trpcOptions'],
  });
  return app;
}

/** Actions such as POST /api/items/:id/ack need no body: treat a bodiless request as `{}`. */
export function acceptBodilessActions(app: FastifyInstance): void {
  app.addHook('preHandler', async (request) => {
    if (request.body !== undefined || request.headers['content-type'] || request.method === 'GET') return;
    request.headers['content-type'] = 'application/json';
    request.body = {};
  });
}
