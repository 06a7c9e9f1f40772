import { initTRPC } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { AppError, toAppError, toTrpcCode } from '../errors';
import type { Context } from './context';

export type Meta = OpenApiMeta & {
  /** HTTP status of a successful REST call (default 200; creations answer 201). */
  status?: number;
  /** Largest JSON body the REST route accepts, in bytes (default BODY_LIMIT, 1 MiB). */
  bodyLimit?: number;
  /** The answer holds a secret shown only once: no Idempotency-Key replay (it is not stored). */
  oneTimeSecret?: boolean;
  /** The `limit` a 413 names when the body is too large, if not bodyLimit (a file's own limit). */
  payloadLimit?: number;
};

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    // tRPC clients get the same status and body as REST, under `data`. Never the stack trace
    // tRPC adds outside production: it holds the cause's message, which a 500 must not show.
    errorFormatter({ shape, error }) {
      const app = toAppError(error);
      const code = toTrpcCode(app.status);
      const { stack: _stack, ...data } = shape.data;
      return {
        ...shape,
        code: TRPC_ERROR_CODES_BY_KEY[code],
        message: app.body.error,
        data: { ...data, code, httpStatus: app.status, body: app.body },
      };
    },
  });

export const router = t.router;
export const mergeRouters = t.mergeRouters;
export const middleware = t.middleware;
export const createCallerFactory = t.createCallerFactory;
/** Every procedure answers 503 with Retry-After, and soon, while the database is unreachable. */
const databaseGuard = t.middleware(({ ctx, next }) => {
  // (`deps` may be absent in unit tests of the procedures themselves.)
  const watch = ctx.deps?.database;
  return watch ? watch.guard(next, (result) => (result.ok ? null : result.error)) : next();
});

export const publicProcedure = t.procedure.use(databaseGuard);
export { AppError };
