import type { AnyTRPCRouter } from '@trpc/server';
import { type FastifyTRPCPluginOptions, fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps';
import { toAppError } from '../errors';
import { appRouter } from '../trpc/app-router';
import { contextFactory } from '../trpc/context';
import { createBaseApp } from './common';
import { registerDocsPage } from './docs-page';
import { registerDownloads } from './downloads';
import { openApiDocument } from './openapi';
import { registerRestRoutes } from './rest';

/** The resource process (port 3000): /api (REST from the tRPC procedures), /trpc, operations. */
export async function buildResourceApp(
  deps: Deps,
  router: AnyTRPCRouter = appRouter,
): Promise<FastifyInstance> {
  const document = openApiDocument(router, deps.env);
  const app = createBaseApp(deps, { name: 'resource' });
  const createContext = contextFactory(deps);

  app.get('/api/openapi.json', async () => document);
  registerDocsPage(app);
  registerRestRoutes(app, router, createContext);
  registerDownloads(app, deps);

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
