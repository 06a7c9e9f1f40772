import { askApproval } from '../../approval';
import { createClient } from '../../client';
import { callMessage, callTitle } from '../../gate/describe';
import type { CompiledPolicy } from '../../gate/policy';
import type { ToolCall } from '../../gate/rules';
import { describeError } from '../format';
import type { Connection, HookEvent } from './hook';
import type { HookDecision } from './output';

const PERSON = 'a person through Beckon';

/** What happens when nobody decided: the policy's fallback, never an allow. */
const fallback = (policy: CompiledPolicy, why: string): HookDecision =>
  policy.on_timeout === 'ask'
    ? { action: 'ask', reason: `${why}: asking here instead` }
    : { action: 'deny', reason: `${why}: denied (the gate's on_timeout)` };

/** Asks the policy's people through Beckon and waits up to the policy's timeout. */
export async function askPerson(
  event: HookEvent,
  call: ToolCall,
  rule: string,
  policy: CompiledPolicy,
  connection: Connection,
): Promise<HookDecision> {
  const { url, token } = connection;
  if (!url || !token) return fallback(policy, 'BECKON_URL and BECKON_TOKEN are not both set');
  const beckon = createClient({ baseUrl: url, token, retries: 2 });
  const metadata: Record<string, unknown> = { hook_event: event.hook_event_name, tool: call.tool };
  for (const key of ['session_id', 'tool_use_id', 'cwd'] as const) if (event[key]) metadata[key] = event[key];
  try {
    const approval = await askApproval(beckon, {
      rule,
      title: callTitle(call, event.cwd),
      message: callMessage(call, { rule, cwd: event.cwd }),
      metadata,
      timeoutSeconds: policy.timeout_seconds,
      grantMinutes: policy.grant_minutes,
      ...(policy.assignees ? { assignees: policy.assignees } : {}),
      ...(policy.channel ? { channel: policy.channel } : {}),
    });
    const note = approval.reason ? `: ${approval.reason}` : '';
    if (approval.decision === 'allow') {
      const until = approval.grant && !approval.itemId ? ` (a grant until ${approval.grant.expires_at})` : '';
      return { action: 'allow', reason: `Allowed by ${PERSON}${until}${note}` };
    }
    if (approval.decision === 'deny') return { action: 'deny', reason: `Denied by ${PERSON}${note}` };
    return fallback(policy, `Nobody decided within ${policy.timeout_seconds} s`);
  } catch (error) {
    return fallback(policy, `Beckon could not be asked (${describeError(error, url)})`);
  }
}
