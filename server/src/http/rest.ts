import type { AnyTRPCRouter } from '@trpc/server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors';
import type { Context } from '../trpc/context';
import { needsCredential } from '../trpc/procedures';
import { restProcedures } from '../trpc/trpc-internals';

export { restProcedures };

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The REST face of the procedures: one Fastify route per `openapi` meta (same path and method as
 * the OpenAPI document), invoking the procedure exactly as tRPC's server-side caller does (its
 * middlewares, input and output validation, errors), minus the caller's per-request proxy and
 * path lookup, so authentication, permissions, validation and errors run as over /trpc. Path
 * parameters, then the query (GET, DELETE) or the JSON body, form the input.
 */
export function registerRestRoutes(
  app: FastifyInstance,
  router: AnyTRPCRouter,
  createContext: (opts: { req: FastifyRequest }) => Context,
  basePath = '/api',
): void {
  for (const { meta, hasInput, call, procedure } of restProcedures(router)) {
    const { method } = meta.openapi;
    app.route({
      method,
      url: basePath + meta.openapi.path.replace(/\{(\w+)\}/g, ':$1'),
      ...(meta.bodyLimit ? { bodyLimit: meta.bodyLimit } : {}),
      // `protect`: the credential is checked before the body is read (api-rate-limit.ts).
      config: { payloadLimit: meta.payloadLimit, protect: needsCredential(procedure) },
      handler: async (request, reply) => {
        const fromBody = method !== 'GET' && method !== 'DELETE';
        const source = fromBody ? (request.body ?? {}) : request.query;
        if (!isPlainObject(source)) throw AppError.invalid({ body: 'expected a JSON object' });
        const input = { ...source, ...(request.params as Record<string, string>) };
        const ctx = createContext({ req: request });
        const output = await call(ctx, hasInput ? input : undefined);
        return reply
          .code(meta.status ?? 200)
          .headers(ctx.responseHeaders)
          .send(output);
      },
    });
  }
}
