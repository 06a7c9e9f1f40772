import type { AnyTRPCRouter } from '@trpc/server';
import { type FastifyTRPCPluginOptions, fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps';
import { toAppError } from '../errors';
import { contextFactory } from '../trpc/context';
import { registerRestRoutes } from './rest';
import { TRPC_MAX_BATCH } from './surface-replies';

/** Serves a router twice: as REST routes under `rest` and as tRPC under `trpc`. */
export async function serveProcedures(
  app: FastifyInstance,
  deps: Deps,
  router: AnyTRPCRouter,
  prefixes: { rest: string; trpc: string },
): Promise<void> {
  const createContext = contextFactory(deps);
  // Which procedures a /trpc request calls, for its log line and metrics (unknown names folded).
  const known = new Set(Object.keys(router._def.procedures));
  const trpcRoute = `${prefixes.trpc}/:path`;
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.url !== trpcRoute) return;
    const path = (request.params as { path?: string }).path ?? '';
    request.procedures = path.split(',').map((name) => (known.has(name) ? name : 'unknown'));
  });
  registerRestRoutes(app, router, createContext, prefixes.rest);
  await app.register(fastifyTRPCPlugin, {
    prefix: prefixes.trpc,
    trpcOptions: {
      router,
      createContext,
      maxBatchSize: TRPC_MAX_BATCH,
      // The status and headers (a 401's WWW-Authenticate challenge) of the REST answer.
      responseMeta: ({ errors, ctx }) => {
        if (!errors[0]) {
          // Headers a procedure adds (a cookie binding a Slack sign-in to the browser), as over REST.
          const added = ctx?.responseHeaders ?? {};
          return Object.keys(added).length > 0 ? { headers: new Headers(added) } : {};
        }
        const { status, headers } = toAppError(errors[0]);
        return { status, headers: new Headers(headers) };
      },
      onError: ({ error }) => {
        // Unexpected failures only: a 503 (a process or a provider not configured) is an answer.
        if (toAppError(error).status === 500) app.log.error({ err: error }, 'procedure failed');
      },
    } satisfies FastifyTRPCPluginOptions<AnyTRPCRouter>['trpcOptions'],
  });
}
