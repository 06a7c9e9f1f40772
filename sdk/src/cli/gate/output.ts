/**
 * A decision in the output format of the event that asked (Claude Code's hook contract, which other
 * coding agents copied): `PermissionRequest` answers `decision.behavior`; `PreToolUse` (and any
 * other event name) answers `permissionDecision`, with the event's own name.
 */
export type HookDecision = { action: 'allow' | 'deny' | 'ask'; reason: string };

/** The text for stdout, or '' when the agent should go on as it would without the gate. */
export function hookOutput(eventName: string, decision: HookDecision): string {
  if (eventName === 'PermissionRequest') {
    // "ask": no decision, so the agent shows its own permission dialog.
    if (decision.action === 'ask') return '';
    const verdict =
      decision.action === 'allow' ? { behavior: 'allow' } : { behavior: 'deny', message: decision.reason };
    return `${JSON.stringify({ hookSpecificOutput: { hookEventName: eventName, decision: verdict } })}\n`;
  }
  const output = {
    hookEventName: eventName,
    permissionDecision: decision.action,
    permissionDecisionReason: decision.reason,
  };
  return `${JSON.stringify({ hookSpecificOutput: output })}\n`;
}
