import type { Meta } from '@beckon/contracts/meta';
import type { ProcedureContract } from '@beckon/contracts/procedure';
import type {
  AnyTRPCRouter,
  inferRouterInputs,
  inferRouterOutputs,
  TRPCProcedureBuilder,
  TRPCUnsetMarker,
} from '@trpc/server';
import type { z } from 'zod';

type Unset = TRPCUnsetMarker;
type InputIn<C> = C extends { input: infer I extends z.ZodType } ? z.input<I> : Unset;
type InputOut<C> = C extends { input: infer I extends z.ZodType } ? z.output<I> : Unset;

/**
 * A procedure set up from its contract (meta, input and output schemas): the router adds the
 * handler with `.query()` or `.mutation()`, whichever the contract names (the other does not
 * compile), so a procedure cannot drift from what clients are typed with.
 */
export function implement<Ctx, Overrides, Caller extends boolean, Shape, C extends ProcedureContract>(
  builder: TRPCProcedureBuilder<Ctx, Meta, Overrides, Unset, Unset, Unset, Unset, Caller, Shape>,
  contract: C,
): Pick<
  TRPCProcedureBuilder<
    Ctx,
    Meta,
    Overrides,
    InputIn<C>,
    InputOut<C>,
    z.input<C['output']>,
    z.output<C['output']>,
    Caller,
    Shape
  >,
  C['kind']
> {
  const described = builder.meta(contract.meta);
  const withInput = contract.input ? described.input(contract.input) : described;
  return withInput.output(contract.output) as never;
}

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The procedures (`router.procedure`) whose input or output types differ: `never` when none. */
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

/**
 * `true` when a router has exactly the procedures of its contract, with the same inputs and
 * outputs; else the names of those that differ (a compile error where it is asserted).
 */
export type MatchesContract<Server extends AnyTRPCRouter, Contract extends AnyTRPCRouter> = [
  | Differences<inferRouterInputs<Server>, inferRouterInputs<Contract>>
  | Differences<inferRouterOutputs<Server>, inferRouterOutputs<Contract>>,
] extends [never]
  ? true
  :
      | Differences<inferRouterInputs<Server>, inferRouterInputs<Contract>>
      | Differences<inferRouterOutputs<Server>, inferRouterOutputs<Contract>>;
