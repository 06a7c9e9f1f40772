import type { ErrorShape } from '@beckon/contracts/errors';
import type { Meta } from '@beckon/contracts/meta';
import { initTRPC } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { AppError, toAppError, toTrpcCode } from '../errors';
import { sequencedAfter } from '../realtime/sequencer';
import { inProcedureSpan } from '../tracing/procedure-spans';
import type { Context } from './context';

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    // tRPC clients get the same status and body as REST, under `data`. Never the stack trace
    // tRPC adds outside production: it holds the cause's message, which a 500 must not show.
    errorFormatter({ shape, error }): ErrorShape {
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
/**
 * Every procedure answers 503 with Retry-After, and soon, while the database is unreachable; is
 * a span of its own when tracing; and a mutation answers once the events and audit entries it
 * wrote are in their organization's order (realtime/sequencer.ts). One middleware for all three:
 * each step costs on every call.
 */
const guard = t.middleware(({ ctx, next, path, type }) => {
  // (`deps` may be absent in unit tests of the procedures themselves.)
  const watch = ctx.deps?.database;
  const guarded = () => (watch ? watch.guard(next, (result) => (result.ok ? null : result.error)) : next());
  const run =
    type === 'mutation' && ctx.deps?.sequencer
      ? () =>
          sequencedAfter(ctx.deps.sequencer, guarded, (err) =>
            ctx.deps.log.warn({ err }, 'sequencing after a change failed: the sweep will do it'),
          )
      : guarded;
  return inProcedureSpan(path, type, run, (result) => {
    if (result.ok) return undefined;
    const { status, body } = toAppError(result.error);
    return { status, code: body.code };
  });
});

export const publicProcedure = t.procedure.use(guard);
export { AppError };
