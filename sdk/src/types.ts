import type { AppRouter } from '@beckon/server/app-router';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';

/** Inputs and outputs of every procedure, inferred from the server's router (types only). */
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;
export type { AppRouter };

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
