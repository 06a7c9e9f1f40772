import { initTRPC, TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { AppError, toAppError, toTrpcCode } from '../errors';
import type { Context } from './context';

export type Meta = OpenApiMeta & {
  /** Exposed as an MCP tool under this name (see the mcp package). */
  mcp?: { name: string; description: string };
};

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    // tRPC clients get the same status and body as REST, under `data`.
    errorFormatter({ shape, error }) {
      const app = toAppError(error);
      return {
        ...shape,
        message: app.body.error,
        data: { ...shape.data, httpStatus: app.status, body: app.body },
      };
    },
  });

/** Gives an AppError thrown in a procedure the tRPC code of its HTTP status. */
const appErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof AppError) {
    const cause = result.error.cause;
    return {
      ...result,
      error: new TRPCError({ code: toTrpcCode(cause.status), message: cause.message, cause }),
    };
  }
  return result;
});

export const router = t.router;
export const middleware = t.middleware;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(appErrors);
export { AppError };
