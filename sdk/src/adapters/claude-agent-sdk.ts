import type { CanUseTool, PermissionResult } from '@anthropic-ai/claude-agent-sdk';
import { askApproval, type BeckonClient } from '@beckon/sdk';
import { callMessage, callTitle } from '../gate/describe';
import { compilePolicy, decide, type GatePolicy } from '../gate/policy';
import { type AdapterOptions, refusal } from './request';

export type { GatePolicy };

export type BeckonCanUseToolOptions = Omit<AdapterOptions, 'rule'> & {
  beckon: BeckonClient;
  /**
   * The same policy as `beckon gate` (Claude Code's rule syntax: `Bash(npm test*)`, `Edit(src/**)`):
   * allow and deny rules decide at once, the rest asks a person. Without it, every call asks.
   */
  policy?: GatePolicy;
  /** Where relative rules start (default: this process's working directory). */
  cwd?: string;
  home?: string;
};

/**
 * The Claude Agent SDK's `canUseTool`: asks people through Beckon before a tool runs (after the
 * policy's allow and deny rules). A denial's message is the person's note.
 *
 * ```ts
 * query({ prompt, options: { canUseTool: beckonCanUseTool({ beckon, policy }) } })
 * ```
 */
export function beckonCanUseTool(options: BeckonCanUseToolOptions): CanUseTool {
  const {
    beckon,
    policy: given,
    cwd = process.cwd(),
    home = process.env.HOME ?? '/',
    agent,
    ...request
  } = options;
  const policy = compilePolicy(given ?? { default: 'ask' });
  const ctx = { cwd, projectDir: cwd, home };
  return async (toolName, input, { signal, toolUseID }): Promise<PermissionResult> => {
    const call = { tool: toolName, input };
    const verdict = decide(policy, call, ctx);
    const by = verdict.byDefault ? "the gate policy's default" : `the gate policy rule ${verdict.rule}`;
    if (verdict.action === 'allow') return { behavior: 'allow', updatedInput: input, toolUseID };
    if (verdict.action === 'deny') return { behavior: 'deny', message: `Denied by ${by}`, toolUseID };
    const approval = await askApproval(
      beckon,
      {
        timeoutSeconds: policy.timeout_seconds,
        grantMinutes: policy.grant_minutes,
        ...(policy.assignees ? { assignees: policy.assignees } : {}),
        ...(policy.channel ? { channel: policy.channel } : {}),
        ...request,
        rule: verdict.rule,
        title: callTitle(call, cwd),
        message: callMessage(call, { rule: verdict.rule, cwd, agent }),
        metadata: { ...request.metadata, tool_use_id: toolUseID },
      },
      { signal },
    ).catch((error: Error) => error);
    if (approval instanceof Error) {
      return {
        behavior: 'deny',
        message: `Beckon could not be asked (${approval.message}): not run`,
        toolUseID,
      };
    }
    if (approval.decision === 'allow') return { behavior: 'allow', updatedInput: input, toolUseID };
    return { behavior: 'deny', message: refusal(approval), toolUseID };
  };
}
