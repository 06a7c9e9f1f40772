import type { Approval, ApprovalRequest } from '@beckon/sdk';
import { callMessage, callTitle } from '../gate/describe';

/** What every adapter accepts besides its client: who decides, how long, what a grant covers. */
export type AdapterOptions = Omit<ApprovalRequest, 'rule' | 'title' | 'message'> & {
  /** The rule of a call, which a grant ("allow for N minutes") covers: the tool's name by default. */
  rule?: (tool: string, input: Record<string, unknown>) => string;
  /** Which agent asks, shown to the people deciding (e.g. "release bot"). */
  agent?: string;
};

const asRecord = (input: unknown): Record<string, unknown> =>
  input !== null && typeof input === 'object' && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : { input };

/** The question about one tool call, as every adapter asks it. */
export function toolRequest(tool: string, rawInput: unknown, options: AdapterOptions): ApprovalRequest {
  const input = asRecord(rawInput);
  const { rule: ruleOf, agent, ...rest } = options;
  const rule = ruleOf?.(tool, input) ?? tool;
  const call = { tool, input };
  return { ...rest, rule, title: callTitle(call), message: callMessage(call, { rule, agent }) };
}

/** The text a model reads when a call did not run. */
export function refusal(approval: Approval): string {
  if (approval.decision === 'timeout') return 'Nobody decided in time: the call was not run.';
  return `Denied by a person through Beckon${approval.reason ? `: ${approval.reason}` : ''}`;
}
