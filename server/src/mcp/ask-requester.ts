import type { Form, FormField } from '@beckon/contracts/items/form.contract';
import { toAppError } from '../errors';
import { answerAsRequester } from './answer';
import { signState, verifyState } from './request-state';
import { callerOf, type Item, invalidArguments, type RpcContext, RpcError, toolResult } from './rpc';

/** How long a question asked in the chat can be answered through its `requestState`. */
const STATE_TTL_SECONDS = 24 * 3600;
/** The key of Beckon's one input request. */
const ANSWER = 'answer';

type AskedItem = Item & { message?: string | null; form?: Form | null };

/** A form field as an elicitation schema property (every Beckon field type has one). */
function property(field: FormField): Record<string, unknown> {
  const base = { title: field.label, ...(field.help ? { description: field.help } : {}) };
  const fallback = 'default' in field && field.default !== undefined ? { default: field.default } : {};
  switch (field.type) {
    case 'yesno':
    case 'checkbox':
      return { type: 'boolean', ...base, ...fallback };
    case 'text':
    case 'textarea':
      return {
        type: 'string',
        ...base,
        ...(field.min_length !== undefined ? { minLength: field.min_length } : {}),
        ...(field.max_length !== undefined ? { maxLength: field.max_length } : {}),
        ...fallback,
      };
    case 'number':
      return {
        type: 'number',
        ...base,
        ...(field.min !== undefined ? { minimum: field.min } : {}),
        ...(field.max !== undefined ? { maximum: field.max } : {}),
        ...fallback,
      };
    case 'date':
      return { type: 'string', format: 'date', ...base, ...fallback };
    case 'select':
    case 'radio':
      return {
        type: 'string',
        ...base,
        oneOf: field.options.map((o) => ({ const: o.value, title: o.label })),
        ...fallback,
      };
    case 'multiselect':
      return {
        type: 'array',
        ...base,
        items: { anyOf: field.options.map((o) => ({ const: o.value, title: o.label })) },
        ...fallback,
      };
  }
}

/** The form as the `requestedSchema` of a form elicitation: a flat object of its fields. */
export function elicitationSchema(form: Form) {
  return {
    type: 'object',
    properties: Object.fromEntries(form.fields.map((field) => [field.id, property(field)])),
    required: form.fields.filter((field) => field.required).map((field) => field.id),
  };
}

/** Which elicitation the client declared: form (also an empty `elicitation: {}`), else URL. */
function elicitationMode(ctx: RpcContext): 'form' | 'url' | null {
  const declared = ctx.modern?.clientCapabilities.elicitation as Record<string, unknown> | undefined;
  if (!declared || typeof declared !== 'object') return null;
  if ('form' in declared || !('url' in declared)) return 'form';
  return 'url';
}

const pageOf = (ctx: RpcContext, item: Item) => `${ctx.deps.env.APP_URL}/items/${item.id}`;

async function inputRequired(ctx: RpcContext, item: AskedItem, mode: 'form' | 'url', state?: string) {
  const message = [item.title, item.message].filter(Boolean).join('\n\n');
  const request =
    mode === 'form' && item.form
      ? { mode: 'form', message, requestedSchema: elicitationSchema(item.form) }
      : { mode: 'url', message: `${message}\n\nAnswer on Beckon's page.`, url: pageOf(ctx, item) };
  const requestState =
    state ??
    (await signState(ctx.deps.env, {
      i: item.id,
      o: ctx.identity.orgId,
      c: ctx.identity.credentialId,
      e: Math.floor(Date.now() / 1000) + STATE_TTL_SECONDS,
    }));
  return {
    resultType: 'input_required',
    inputRequests: { [ANSWER]: { method: 'elicitation/create', params: request } },
    requestState,
  };
}

/**
 * First round of `service.ask` with `ask_requester: true` at 2026-07-28: the item exists (anyone
 * it is meant for may still answer it elsewhere), and the requester is asked in their own client,
 * by form elicitation, or by a link to the item's page when the client has only URL elicitation.
 * Null when the client declared no elicitation: the call goes on as any other.
 */
export async function askInChat(ctx: RpcContext, item: AskedItem) {
  const mode = elicitationMode(ctx);
  return mode ? inputRequired(ctx, item, mode) : null;
}

type Responses = Record<string, { action?: unknown; content?: unknown } | undefined>;

/**
 * The retry that carries the requester's answer (`inputResponses`) and the `requestState`. An
 * accepted form answers the item as the requester (`answered_via: "mcp"`, through the same
 * operation as every answer); an answer the form refuses, or a declined request, leaves the item
 * open; `settle` then decides what the open item becomes (a task, or the item as it is).
 */
export async function continueAsk(
  ctx: RpcContext,
  params: Record<string, unknown>,
  settle: (item: Item, note: string) => Promise<unknown>,
) {
  const state = await verifyState(ctx.deps.env, String(params.requestState), {
    orgId: ctx.identity.orgId,
    credentialId: ctx.identity.credentialId,
  });
  if (!state) throw new RpcError(-32602, 'Invalid params: requestState is not one this server issued to you');
  const caller = callerOf(ctx);
  let item: AskedItem;
  try {
    item = (await caller.items.get({ id: state.i })) as AskedItem;
  } catch (error) {
    throw RpcError.from(error);
  }
  if (item.status !== 'open') return toolResult(ctx, item);
  const mode = elicitationMode(ctx) ?? 'url';
  const response = ((params.inputResponses ?? {}) as Responses)[ANSWER];
  // Not answered yet: asked again, with the same state.
  if (!response || typeof response !== 'object')
    return inputRequired(ctx, item, mode, String(params.requestState));
  if (response.action !== 'accept')
    return settle(
      item,
      'The requester declined to answer here; the question stays open for the people it was sent to.',
    );
  if (!response.content || typeof response.content !== 'object') {
    // URL elicitation: the person answered (or not) on the page.
    return settle(item, 'No answer yet on the item page; the question stays open.');
  }
  try {
    await answerAsRequester(ctx, item.id, response.content);
  } catch (error) {
    const appError = toAppError(error);
    if (appError.status === 400 || appError.status === 422) return invalidArguments(appError);
    if (appError.body.code === 'permission_denied') throw RpcError.from(appError);
    if (appError.status === 403 || appError.status === 409)
      return settle(item, `The answer was not counted (${appError.body.error}); the question stays open.`);
    throw RpcError.from(appError);
  }
  return toolResult(ctx, await caller.items.get({ id: item.id }));
}
