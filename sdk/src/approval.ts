import type { BeckonClient } from './client';
import type { CallOptions, RouterInputs, RouterOutputs } from './types';

/** A grant of "allow for N minutes", remembered by the server per agent and rule. */
export type GateGrant = RouterOutputs['gate']['grant'];

/** What a person is asked about a tool call (docs/agents.md). */
export type ApprovalRequest = {
  /** The rule the call matched: a grant covers later calls with the same rule. */
  rule: string;
  /** What the agent wants to do, in a line: `Bash: git push`. */
  title: string;
  /** The whole call, for the person deciding. */
  message?: string;
  assignees?: RouterInputs['gate']['request']['assignees'];
  channel?: string;
  priority?: number;
  metadata?: Record<string, unknown>;
  /** How long people have (default 300 s); then the question expires and the answer is `timeout`. */
  timeoutSeconds?: number;
  /** The N of "allow for N minutes" (default 30). */
  grantMinutes?: number;
};

/**
 * The outcome of a question about a tool call. `reason` is the person's note. `timeout`: nobody
 * decided in time (the question expired, was withdrawn, or the wait ended): never an allow.
 */
export type Approval =
  | { decision: 'allow'; reason: string | null; itemId: string | null; grant: GateGrant | null }
  | { decision: 'deny'; reason: string | null; itemId: string }
  | { decision: 'timeout'; reason: string | null; itemId: string | null };

/** A question asked and not decided yet: wait for it with `awaitApproval`, now or after a restart. */
export type PendingApproval = { itemId: string; deadlineAt: string | null };

/** Grace after the deadline for the server's expiry to be seen before the wait gives up by itself. */
const EXPIRY_GRACE_MS = 15_000;

/**
 * Asks whether a tool call may run: an allow at once under a grant in force for the rule,
 * otherwise a question (an item with allow / allow for N minutes / deny and a note).
 */
export async function startApproval(
  beckon: BeckonClient,
  request: ApprovalRequest,
  options: CallOptions = {},
): Promise<{ approval: Approval } | { pending: PendingApproval }> {
  const input: RouterInputs['gate']['request'] = { rule: request.rule, title: request.title };
  if (request.message !== undefined) input.message = request.message;
  if (request.assignees !== undefined) input.assignees = request.assignees;
  if (request.channel !== undefined) input.channel = request.channel;
  if (request.priority !== undefined) input.priority = request.priority;
  if (request.metadata !== undefined) input.metadata = request.metadata;
  if (request.timeoutSeconds !== undefined) input.timeout_seconds = request.timeoutSeconds;
  if (request.grantMinutes !== undefined) input.grant_minutes = request.grantMinutes;
  const { grant, item } = await beckon.gate.request(input, options);
  if (grant) return { approval: { decision: 'allow', reason: grant.note, itemId: null, grant } };
  if (!item) throw new Error('the server answered neither a grant nor a question');
  return { pending: { itemId: item.id, deadlineAt: item.deadline_at } };
}

const noteOf = (response: Record<string, unknown> | null) =>
  typeof response?.note === 'string' && response.note.trim() !== '' ? response.note.trim() : null;

/**
 * Waits for a person's decision on a question `startApproval` asked (by item id: it survives a
 * process restart). An "allow for N minutes" answer is recorded as a grant on the way.
 */
export async function awaitApproval(
  beckon: BeckonClient,
  pending: PendingApproval,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<Approval> {
  const deadline = pending.deadlineAt
    ? Date.parse(pending.deadlineAt) + EXPIRY_GRACE_MS - Date.now()
    : undefined;
  const timeoutMs = options.timeoutMs ?? deadline;
  const outcome = await beckon.waitForAnswer(pending.itemId, {
    ...(timeoutMs === undefined ? {} : { timeoutMs: Math.max(timeoutMs, 0) }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const itemId = pending.itemId;
  const reason = noteOf(outcome.response);
  if (outcome.status === 'dismissed') return { decision: 'deny', reason, itemId };
  if (outcome.status !== 'answered' || outcome.byPolicy) return { decision: 'timeout', reason: null, itemId };
  const decision = outcome.response?.decision;
  if (decision === 'allow') return { decision: 'allow', reason, itemId, grant: null };
  if (decision !== 'allow_for') return { decision: 'deny', reason, itemId };
  // The person allowed the call: a grant that could not be recorded only means asking next time.
  const grant = await beckon.gate.grant(itemId).catch(() => null);
  return { decision: 'allow', reason, itemId, grant };
}

/** `startApproval`, then `awaitApproval` when a question was asked. */
export async function askApproval(
  beckon: BeckonClient,
  request: ApprovalRequest,
  options: { signal?: AbortSignal } = {},
): Promise<Approval> {
  const started = await startApproval(beckon, request, options);
  if ('approval' in started) return started.approval;
  return awaitApproval(beckon, started.pending, options);
}
