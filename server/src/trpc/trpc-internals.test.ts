// Beckon relies on three things inside tRPC that are not its public API (trpc-internals.ts and the
// patch). Each is guarded here, so an upgrade that changes one fails in CI with a message naming
// it, not at run time.
import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { Context } from './context';
import { createCallerFactory, publicProcedure, router } from './init';
import { directCallerFactory, middlewareAnswer, restProcedures } from './trpc-internals';

const ctx = { deps: {}, responseHeaders: {} } as unknown as Context;

describe('tRPC internals Beckon depends on', () => {
  it('the REST adapter: a router lists its procedures by dotted path, with meta, inputs and type, and a procedure is callable', async () => {
    const testRouter = router({
      nested: router({
        get: publicProcedure
          .meta({ openapi: { method: 'GET', path: '/things/{id}' } })
          .input(z.object({ id: z.string() }))
          .query(({ input }) => ({ got: input.id })),
      }),
    });
    const found = restProcedures(testRouter);
    expect(
      found.map(({ path, type, hasInput }) => ({ path, type, hasInput })),
      'router._def.procedures / procedure._def.{meta,inputs,type} changed: restProcedures in trpc/trpc-internals.ts must follow',
    ).toEqual([{ path: 'nested.get', type: 'query', hasInput: true }]);
    const output = await found[0]!.call(ctx, { id: 'x' });
    expect(
      output,
      'calling a procedure as a function (what the caller does) changed: see Invoke in trpc/trpc-internals.ts',
    ).toEqual({
      got: 'x',
    });
  });

  it('the direct caller answers as the caller tRPC makes: results, context, validation errors, nesting', async () => {
    const testRouter = router({
      a: router({
        b: router({
          echo: publicProcedure
            .input(z.object({ n: z.number() }))
            .query(({ input, ctx }) => ({ n: input.n, headers: ctx.responseHeaders })),
        }),
        save: publicProcedure.input(z.object({ n: z.number() })).mutation(({ input }) => input.n * 2),
      }),
    });
    const proxied = createCallerFactory(testRouter)(ctx);
    const direct = directCallerFactory<typeof proxied>(testRouter)(ctx);
    expect(await direct.a.b.echo({ n: 1 })).toEqual(await proxied.a.b.echo({ n: 1 }));
    expect(await direct.a.save({ n: 2 })).toBe(4);
    const refused = (call: Promise<unknown>) =>
      call.then(
        () => null,
        (error: { code?: string }) => error.code,
      );
    expect(await refused(direct.a.save({ n: 'x' } as never))).toBe('BAD_REQUEST');
    expect(await refused(direct.a.save({ n: 'x' } as never))).toBe(
      await refused(proxied.a.save({ n: 'x' } as never)),
    );
  });

  it("the Idempotency-Key replay: a middleware may answer without calling next, with tRPC's middleware marker", async () => {
    const replaying = publicProcedure.use(async () => middlewareAnswer<never>({ replayed: true }, {}));
    const caller = createCallerFactory(router({ create: replaying.mutation(() => ({ replayed: false })) }))(
      ctx,
    );
    expect(
      await caller.create(),
      "tRPC no longer accepts a middleware result marked 'middlewareMarker': middlewareAnswer in trpc/trpc-internals.ts must follow",
    ).toEqual({ replayed: true });
  });

  it('the patch: inputs and outputs are parsed with zod’s synchronous parse (patches/@trpc__server@*.patch)', async () => {
    const require = createRequire(import.meta.url);
    const { version } = require('@trpc/server/package.json') as { version: string };
    expect(version, 'the patch names this exact version: update the patch with the upgrade').toBe('11.22.1');
    const input = z.object({ n: z.number() });
    const parseAsync = vi.spyOn(input, 'parseAsync');
    const caller = createCallerFactory(
      router({ echo: publicProcedure.input(input).query(({ input }) => input) }),
    )(ctx);
    expect(await caller.echo({ n: 1 })).toEqual({ n: 1 });
    expect(parseAsync, 'the synchronous-parse patch of @trpc/server is not applied').not.toHaveBeenCalled();
    // The patch falls back to parseAsync on zod's own message for an async refinement.
    const asyncSchema = z.string().refine(async () => true);
    expect(() => asyncSchema.parse('x'), 'zod changed the message the patch relies on').toThrow(
      /^Encountered Promise during synchronous parse/,
    );
  });
});
