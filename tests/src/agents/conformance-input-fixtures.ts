import { MISSING_CLIENT_CAPABILITY } from '@beckon/server/mcp/modern';
import { signState, verifyState } from '@beckon/server/mcp/request-state';
import { type RpcContext, RpcError } from '@beckon/server/mcp/rpc';

/**
 * The conformance suite's fixtures of multi round-trip requests (2026-07-28: a result of
 * `resultType: "input_required"`, the client's retry with `inputResponses` and `requestState`),
 * with the state signed by Beckon's own request-state signing. Test code only.
 */

const text = (value: string) => ({ type: 'text', text: value });
const elicit = (message: string, property: string, type = 'string') => ({
  method: 'elicitation/create',
  params: {
    message,
    requestedSchema: { type: 'object', properties: { [property]: { type } }, required: [property] },
  },
});
const sample = (question: string, maxTokens: number) => ({
  method: 'sampling/createMessage',
  params: { messages: [{ role: 'user', content: text(question) }], maxTokens },
});
const ROOTS = { method: 'roots/list', params: {} };

type Accepted = { action: 'accept'; content?: Record<string, unknown> };

/** The responses the client sent that answer a request (accepted, as objects); others ignored. */
function answered(params: Record<string, unknown>): Record<string, Accepted> {
  const given = params.inputResponses;
  if (!given || typeof given !== 'object' || Array.isArray(given)) return {};
  return Object.fromEntries(
    Object.entries(given).filter(
      ([, response]) =>
        !!response && typeof response === 'object' && (response as Accepted).action === 'accept',
    ),
  ) as Record<string, Accepted>;
}

const inputRequired = (inputRequests: Record<string, unknown>, requestState?: string) => ({
  resultType: 'input_required',
  inputRequests,
  ...(requestState ? { requestState } : {}),
});

const STATE_TTL_SECONDS = 600;
const stateOf = (ctx: RpcContext, round: string) =>
  signState(ctx.deps.env, {
    i: round,
    o: ctx.identity.orgId,
    c: ctx.identity.credentialId,
    e: Math.floor(Date.now() / 1000) + STATE_TTL_SECONDS,
  });
/** The round a `requestState` was issued for; a state not issued here is refused (-32602). */
async function roundOf(ctx: RpcContext, params: Record<string, unknown>): Promise<string | null> {
  if (params.requestState === undefined) return null;
  const state = await verifyState(ctx.deps.env, String(params.requestState), {
    orgId: ctx.identity.orgId,
    credentialId: ctx.identity.credentialId,
  });
  if (!state) throw new RpcError(-32602, 'Invalid params: requestState failed its integrity check');
  return state.i;
}

type Call = (ctx: RpcContext, params: Record<string, unknown>) => Promise<Record<string, unknown>>;

export const INPUT_TOOLS: Record<string, Call> = {
  test_input_required_result_elicitation: async (_ctx, params) => {
    const name = answered(params).user_name?.content?.name;
    if (typeof name !== 'string') return inputRequired({ user_name: elicit('What is your name?', 'name') });
    return { content: [text(`Hello, ${name}!`)] };
  },
  test_input_required_result_sampling: async (_ctx, params) => {
    // A sampling response is the model's message (role, content, model), not an accept/decline.
    const reply = (params.inputResponses as Record<string, { content?: unknown }> | undefined)
      ?.capital_question;
    if (!reply || typeof reply !== 'object')
      return inputRequired({ capital_question: sample('What is the capital of France?', 100) });
    return { content: [text(`The model said: ${JSON.stringify(reply.content)}`)] };
  },
  test_input_required_result_list_roots: async (_ctx, params) => {
    const roots = (params.inputResponses as Record<string, unknown> | undefined)?.client_roots;
    if (!roots || typeof roots !== 'object') return inputRequired({ client_roots: ROOTS });
    return { content: [text(`Roots: ${JSON.stringify(roots)}`)] };
  },
  test_input_required_result_request_state: async (ctx, params) => {
    const round = await roundOf(ctx, params);
    if (round !== 'confirm' || !answered(params).confirm)
      return inputRequired(
        { confirm: elicit('Please confirm', 'ok', 'boolean') },
        await stateOf(ctx, 'confirm'),
      );
    return { content: [text('Confirmed: state-ok')] };
  },
  test_input_required_result_multiple_inputs: async (ctx, params) => {
    await roundOf(ctx, params);
    const responses = (params.inputResponses ?? {}) as Record<string, unknown>;
    if (!responses.user_name || !responses.greeting || !responses.client_roots)
      return inputRequired(
        {
          user_name: elicit('What is your name?', 'name'),
          greeting: sample('Generate a greeting', 50),
          client_roots: ROOTS,
        },
        await stateOf(ctx, 'multiple'),
      );
    return { content: [text('All inputs received')] };
  },
  test_input_required_result_multi_round: async (ctx, params) => {
    const round = await roundOf(ctx, params);
    const responses = answered(params);
    if (round === 'step1' && responses.step1)
      return inputRequired(
        { step2: elicit('Step 2: What is your favorite color?', 'color') },
        await stateOf(ctx, 'step2'),
      );
    if (round === 'step2' && responses.step2) return { content: [text('Both steps completed')] };
    return inputRequired(
      { step1: elicit('Step 1: What is your name?', 'name') },
      await stateOf(ctx, 'step1'),
    );
  },
  test_input_required_result_tampered_state: async (ctx, params) => {
    const round = await roundOf(ctx, params);
    if (round !== 'tamper' || !answered(params).confirm)
      return inputRequired(
        { confirm: elicit('Please confirm', 'ok', 'boolean') },
        await stateOf(ctx, 'tamper'),
      );
    return { content: [text('State verified')] };
  },
  test_input_required_result_capabilities: async (ctx, params) => {
    const declared = ctx.modern?.clientCapabilities ?? {};
    if (Object.keys(answered(params)).length > 0) return { content: [text('Done')] };
    const requests: Record<string, unknown> = {};
    if (declared.elicitation) requests.user_name = elicit('What is your name?', 'name');
    if (declared.sampling) requests.greeting = sample('Generate a greeting', 50);
    if (declared.roots) requests.client_roots = ROOTS;
    if (Object.keys(requests).length === 0)
      return { content: [text('The client declared nothing to ask with')] };
    return inputRequired(requests);
  },
  // Diagnostics of the stateless core: a capability the client must have declared; a call whose
  // answer asks for input (never a request of its own on the stream); a call that logs only when
  // asked to (no _meta log level here, so nothing).
  test_missing_capability: async (ctx) => {
    if (!ctx.modern?.clientCapabilities.sampling)
      throw new RpcError(MISSING_CLIENT_CAPABILITY, 'Missing required client capability', {
        requiredCapabilities: { sampling: {} },
      });
    return inputRequired({ sample: sample('Say hello', 20) });
  },
  test_streaming_elicitation: async (_ctx, params) =>
    answered(params).answer
      ? { content: [text('Thanks')] }
      : inputRequired({ answer: elicit('Anything to add?', 'note') }),
  test_logging_tool: async () => ({ content: [text('Done, without logging: no log level was asked for')] }),
};

/** prompts/get of the prompt that asks for input first. */
export async function inputPrompt(params: Record<string, unknown>) {
  const context = answered(params).user_context?.content?.context;
  if (typeof context !== 'string')
    return inputRequired({ user_context: elicit('What context should the prompt use?', 'context') });
  return { messages: [{ role: 'user', content: text(`Use this context: ${context}`) }] };
}
