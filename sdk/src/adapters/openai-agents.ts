import { awaitApproval, type BeckonClient, type PendingApproval, startApproval } from '@beckon/sdk';
import type { RunState, RunToolApprovalItem } from '@openai/agents';
import { type AdapterOptions, refusal, toolRequest } from './request';

/** Where the questions' item ids live: the run context, so they travel in `state.toString()`. */
const KEY = 'beckonApprovals';
/** `run` tells this run's questions apart from another's with the same call ids (Idempotency-Key). */
type Carried = { run: string; asked: Record<string, PendingApproval> };
// biome-ignore lint/suspicious/noExplicitAny: any agent and context, as RunState itself takes them
type AnyState = RunState<any, any>;

export type BeckonApprovalOptions = AdapterOptions & { beckon: BeckonClient };

const callIdOf = (item: RunToolApprovalItem) => {
  const raw = item.rawItem as { callId?: string; id?: string };
  return raw.callId ?? raw.id ?? '';
};

/** The run context's user object (made a plain object if the run had none). */
function carrier(state: AnyState): Carried {
  const context = state._context;
  if (context.context === undefined || context.context === null) context.context = {};
  const user = context.context as Record<string, unknown>;
  user[KEY] ??= { run: crypto.randomUUID(), asked: {} } satisfies Carried;
  return user[KEY] as Carried;
}

/**
 * Asks people about each pending tool approval of an interrupted run (`result.state`), once per
 * call: a grant in force approves it at once, otherwise the question's item id is kept in the run
 * context, so it is in `state.toString()` and survives a process restart.
 */
export async function askForApprovals(state: AnyState, options: BeckonApprovalOptions): Promise<string[]> {
  const { beckon, ...request } = options;
  const { run, asked } = carrier(state);
  const items: string[] = [];
  for (const interruption of state.getInterruptions()) {
    const callId = callIdOf(interruption);
    const known = asked[callId];
    if (known) {
      items.push(known.itemId);
      continue;
    }
    const started = await startApproval(
      beckon,
      toolRequest(interruption.name ?? 'tool', JSON.parse(interruption.arguments ?? '{}'), request),
      { idempotencyKey: `openai-agents:${run}:${callId}` },
    );
    if ('approval' in started) state.approve(interruption);
    else {
      asked[callId] = started.pending;
      items.push(started.pending.itemId);
    }
  }
  return items;
}

/**
 * Waits for the people's decisions on the questions `askForApprovals` asked (possibly in another
 * process: pass the state restored with `RunState.fromString`), then approves or rejects each call
 * (a rejection carries the person's note to the model). Run the agent again with the state after.
 */
export async function applyApprovals(
  state: AnyState,
  options: { beckon: BeckonClient; timeoutMs?: number; signal?: AbortSignal },
): Promise<{ approved: string[]; rejected: string[] }> {
  const { asked } = carrier(state);
  const approved: string[] = [];
  const rejected: string[] = [];
  for (const interruption of state.getInterruptions()) {
    const callId = callIdOf(interruption);
    const pending = asked[callId];
    if (!pending) continue;
    const approval = await awaitApproval(options.beckon, pending, {
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (approval.decision === 'allow') {
      state.approve(interruption);
      approved.push(callId);
    } else {
      state.reject(interruption, { message: refusal(approval) });
      rejected.push(callId);
    }
    delete asked[callId];
  }
  return { approved, rejected };
}

/** `askForApprovals`, then `applyApprovals`, in one process. */
export async function resolveApprovals(
  state: AnyState,
  options: BeckonApprovalOptions & { timeoutMs?: number },
) {
  await askForApprovals(state, options);
  return applyApprovals(state, options);
}
