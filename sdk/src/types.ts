import type {
  inferRouterInputs,
  inferRouterOutputs,
  TRPCBuiltRouter,
  TRPCMutationProcedure,
  TRPCQueryProcedure,
  TRPCSubscriptionProcedure,
} from '@trpc/server';
import type { ErrorShape, Procedures } from './generated/router';

type ProcedureOf<P> = P extends { type: 'query'; input: infer I; output: infer O }
  ? TRPCQueryProcedure<{ input: I; output: O; meta: object }>
  : P extends { type: 'mutation'; input: infer I; output: infer O }
    ? TRPCMutationProcedure<{ input: I; output: O; meta: object }>
    : P extends { type: 'subscription'; input: infer I; output: infer O }
      ? TRPCSubscriptionProcedure<{ input: I; output: O; meta: object }>
      : { [K in keyof P]: ProcedureOf<P[K]> };

/**
 * The resource server's router as a client sees it: the procedures with their inputs and outputs
 * (generated from the server's own router, see src/generated), without the server's context.
 */
export type AppRouter = TRPCBuiltRouter<
  { ctx: object; meta: object; errorShape: ErrorShape; transformer: false },
  { [K in keyof Procedures]: ProcedureOf<Procedures[K]> }
>;

/** Inputs and outputs of every procedure. */
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;

type ItemsIn = RouterInputs['items'];
type ItemsOut = RouterOutputs['items'];

export type Item = ItemsOut['get'];
export type ItemStatus = Item['status'];
export type ItemLevel = Item['level'];
export type ItemList = ItemsOut['list'];
export type Comment = ItemsOut['addComment'];
export type TimelineEntry = ItemsOut['timeline'][number];

export type CreateItemInput = ItemsIn['create'];
export type Form = NonNullable<CreateItemInput['form']>;
export type FormField = Form['fields'][number];
/** A question: an item with a form to answer. */
export type AskInput = CreateItemInput & { form: Form };
export type ListItemsInput = ItemsIn['list'];
/** Who an item is for: `{type: "user"|"team", id}` or `{type: "role", name}`. */
export type Assignee = Item['assignees'][number];
/** A step of an escalation policy: a reminder, or an escalation adding assignees. */
export type EscalationStep = Item['escalation'][number];
export type UpdateItemInput = Omit<ItemsIn['update'], 'id'>;
/** Form values keyed by field id. */
export type AnswerValues = Record<string, unknown>;

/** Options every call accepts. */
export type CallOptions = {
  signal?: AbortSignal;
  /**
   * Creates only: the `Idempotency-Key` to send. By default the SDK makes a new UUID per call and
   * reuses it for its own retries; give your own to make retries of your process safe too.
   */
  idempotencyKey?: string;
};
