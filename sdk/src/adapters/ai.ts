import { askApproval, type BeckonClient } from '@beckon/sdk';
import type { ToolApprovalStatus } from 'ai';
import { type AdapterOptions, refusal, toolRequest } from './request';

export type BeckonToolApprovalOptions = AdapterOptions & {
  beckon: BeckonClient;
  /** The tools that need a person (all by default). */
  tools?: string[];
};

/**
 * The Vercel AI SDK's `toolApproval` for `generateText` / `streamText` / `ToolLoopAgent`: each
 * call of a gated tool waits for a person's decision in Beckon (a grant in force passes at once);
 * a denial reaches the model with the person's note as the reason.
 *
 * ```ts
 * generateText({ model, tools, toolApproval: beckonToolApproval({ beckon }), prompt })
 * ```
 */
export function beckonToolApproval(options: BeckonToolApprovalOptions) {
  const { beckon, tools, ...request } = options;
  return async ({
    toolCall,
  }: {
    toolCall: { toolName: string; input: unknown };
  }): Promise<ToolApprovalStatus> => {
    if (tools && !tools.includes(toolCall.toolName)) return 'not-applicable';
    const approval = await askApproval(beckon, toolRequest(toolCall.toolName, toolCall.input, request));
    if (approval.decision === 'allow')
      return { type: 'approved', ...(approval.reason ? { reason: approval.reason } : {}) };
    return { type: 'denied', reason: refusal(approval) };
  };
}
