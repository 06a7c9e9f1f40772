import {
  type Approval,
  awaitApproval,
  type BeckonClient,
  type PendingApproval,
  startApproval,
} from '@beckon/sdk';
import { Command, getConfig, interrupt } from '@langchain/langgraph';
import { type AdapterOptions, toolRequest } from './request';

export { refusal } from './request';

/** The value of an approval's `interrupt()`: where the question is. */
export type BeckonInterrupt = { beckon_approval: PendingApproval & { title: string } };

export type BeckonApprovalOptions = AdapterOptions & {
  beckon: BeckonClient;
  /** Tells apart two questions of one node run about the same tool and input. */
  key?: string;
};

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * Inside a node: asks people through Beckon whether `tool` may run with `input`, and pauses the
 * graph with `interrupt()` until `beckonResume` brings the decision. A grant in force decides at
 * once. The node runs again on resume: the question is made with an Idempotency-Key from the
 * thread, the node and the call, so that run finds the same question (within the server's 24 h).
 */
export async function approvalInterrupt(
  tool: string,
  input: unknown,
  options: BeckonApprovalOptions,
): Promise<Approval> {
  const { beckon, key, ...rest } = options;
  const request = toolRequest(tool, input, rest);
  const configurable = (getConfig()?.configurable ?? {}) as Record<string, unknown>;
  const scope = [configurable.thread_id, configurable.checkpoint_ns, key ?? '', tool, JSON.stringify(input)];
  const idempotencyKey = `langgraph:${await sha256(JSON.stringify(scope))}`;
  const started = await startApproval(beckon, request, { idempotencyKey });
  if ('approval' in started) return started.approval;
  const value: BeckonInterrupt = { beckon_approval: { ...started.pending, title: request.title } };
  return interrupt<BeckonInterrupt, Approval>(value);
}

type Snapshot = { tasks: ReadonlyArray<{ interrupts: ReadonlyArray<{ id?: string; value?: unknown }> }> };

/**
 * Outside the graph: waits for the decisions its pending approval interrupts ask for (after a
 * restart too: they are in the checkpoint) and returns the `Command` that resumes it, or null
 * when it waits for none. `graph.invoke(await beckonResume(...), config)`.
 */
export async function beckonResume(
  graph: { getState: (config: never) => Promise<Snapshot> },
  config: { configurable?: Record<string, unknown> },
  options: { beckon: BeckonClient; timeoutMs?: number; signal?: AbortSignal },
): Promise<Command<Approval | Record<string, Approval>, Record<string, never>, never> | null> {
  const snapshot = await graph.getState(config as never);
  const pending = snapshot.tasks
    .flatMap((task) => task.interrupts)
    .filter(
      (i): i is { id?: string; value: BeckonInterrupt } => !!(i.value as BeckonInterrupt)?.beckon_approval,
    );
  if (pending.length === 0) return null;
  const wait = {
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const answers: Record<string, Approval> = {};
  for (const [index, { id, value }] of pending.entries())
    answers[id ?? String(index)] = await awaitApproval(options.beckon, value.beckon_approval, wait);
  const only = pending.length === 1 ? Object.values(answers)[0] : undefined;
  return new Command<Approval | Record<string, Approval>, Record<string, never>, never>({
    resume: only ?? answers,
  });
}
