import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toAppError } from '../errors';
import { createCallerFactory, publicProcedure, router } from './init';

// tRPC is patched to parse zod schemas synchronously (docs/decisions.md, "Patched dependency"):
// inputs and outputs must still be validated exactly as before, async refinements included.
const taken = new Set(['taken']);
const testRouter = router({
  echo: publicProcedure
    .input(z.object({ n: z.number().int() }))
    .output(z.object({ n: z.number().max(10) }))
    .query(({ input }) => ({ n: input.n, dropped: true })),
  claim: publicProcedure
    .input(z.object({ name: z.string().refine(async (name) => !taken.has(name), 'already taken') }))
    .mutation(({ input }) => input.name),
});
// A context without a database watch: the procedures here touch no database.
const caller = createCallerFactory(testRouter)({ deps: {} } as never);
const failure = (promise: Promise<unknown>) => promise.then(() => null, toAppError);

describe('procedure input and output parsing', () => {
  it('validates input and strips unknown output fields', async () => {
    expect(await caller.echo({ n: 3 })).toEqual({ n: 3 });
    const invalid = await failure(caller.echo({ n: 1.5 }));
    expect(invalid?.status).toBe(400);
    expect(invalid?.body).toMatchObject({ fields: { n: expect.any(String) } });
  });

  it('refuses an output that breaks its schema as an internal error', async () => {
    const broken = await failure(caller.echo({ n: 11 }));
    expect(broken?.status).toBe(500);
  });

  it('still runs async refinements, on every call', async () => {
    expect(await caller.claim({ name: 'free' })).toBe('free');
    for (let i = 0; i < 2; i++) {
      const refused = await failure(caller.claim({ name: 'taken' }));
      expect(refused?.body).toEqual({
        error: 'invalid request',
        code: 'invalid_request',
        fields: { name: 'already taken' },
      });
    }
    expect(await caller.claim({ name: 'also-free' })).toBe('also-free');
  });
});
