// Type-level proof (checked by `pnpm typecheck`, never built) that the generated router types are
// the server's: a contract change on the server fails here until `pnpm --filter @beckon/sdk generate`.
// A path, not a package dependency: the published manifest must not name the private server package.

import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter as ServerRouter } from '../../../server/src/app-router';
import type { AppRouter } from '../types';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The procedures (as `router.procedure` paths) whose types differ: `never` when all match. */
type Differences<A, B> = {
  [R in keyof A | keyof B]: R extends keyof A & keyof B
    ? {
        [P in keyof A[R] | keyof B[R]]: P extends keyof A[R] & keyof B[R]
          ? Same<A[R][P], B[R][P]> extends true
            ? never
            : `${R & string}.${P & string}`
          : `${R & string}.${P & string}`;
      }[keyof A[R] | keyof B[R]]
    : R;
}[keyof A | keyof B];

type InputDifferences = Differences<inferRouterInputs<AppRouter>, inferRouterInputs<ServerRouter>>;
type OutputDifferences = Differences<inferRouterOutputs<AppRouter>, inferRouterOutputs<ServerRouter>>;

export const inputsMatch: [InputDifferences] extends [never] ? true : InputDifferences = true;
export const outputsMatch: [OutputDifferences] extends [never] ? true : OutputDifferences = true;
