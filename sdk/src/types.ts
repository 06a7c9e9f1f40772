import type { AppRouter } from '@beckon/contracts/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';

/**
 * The resource server's router as a client sees it: every procedure with its input and output,
 * typed from the contracts the server implements (published as plain types, see
 * scripts/expand-client-types.mjs).
 */
export type { AppRouter };

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
