/**
 * The policy of the MCP gate: which `tools/call` of the wrapped server run at once, which are
 * refused, which wait for a person. Rules are tool names with `*` wildcards. A call no rule covers
 * gets `default`; `annotations` (the default) lets tools that declare `readOnlyHint` run and asks
 * for every other one. Annotations are the wrapped server's own claims: rules win over them.
 */
export type McpGatePolicy = {
  allow: string[];
  deny: string[];
  ask: string[];
  default: 'allow' | 'deny' | 'ask' | 'annotations';
  timeout_seconds: number;
  grant_minutes: number;
  assignees?: unknown[];
  channel?: string;
};

export const DEFAULT_POLICY: McpGatePolicy = {
  allow: [],
  deny: [],
  ask: [],
  default: 'annotations',
  timeout_seconds: 300,
  grant_minutes: 30,
};

/** What a tool declares about itself (MCP tool annotations). */
export type ToolHints = { readOnlyHint?: boolean; destructiveHint?: boolean };

export type Verdict = { action: 'allow' | 'deny' | 'ask'; rule: string; reason: string };

const KEYS = new Set([...Object.keys(DEFAULT_POLICY), 'assignees', 'channel', 'on_timeout', '$schema']);

const globOf = (pattern: string) =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );

/** Checks a policy file's JSON; throws naming what is wrong. */
export function parsePolicy(raw: unknown): McpGatePolicy {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new Error('a policy is a JSON object');
  const given = raw as Record<string, unknown>;
  const unknown = Object.keys(given).filter((key) => !KEYS.has(key));
  if (unknown.length) throw new Error(`unknown key: ${unknown.join(', ')}`);
  const policy = { ...DEFAULT_POLICY, ...given } as McpGatePolicy & { on_timeout?: unknown };
  for (const key of ['allow', 'deny', 'ask'] as const) {
    const list = policy[key];
    if (!Array.isArray(list) || list.some((rule) => typeof rule !== 'string' || rule === ''))
      throw new Error(`"${key}" must be a list of tool names (with * wildcards)`);
  }
  if (!['allow', 'deny', 'ask', 'annotations'].includes(policy.default))
    throw new Error('"default" must be "allow", "deny", "ask" or "annotations"');
  // A call nobody decided on is refused: there is no other prompt behind an MCP client.
  if (policy.on_timeout !== undefined && policy.on_timeout !== 'deny')
    throw new Error('"on_timeout" can only be "deny"');
  for (const [key, min, max] of [
    ['timeout_seconds', 10, 7 * 86_400],
    ['grant_minutes', 1, 1440],
  ] as const) {
    const value = policy[key];
    if (!Number.isInteger(value) || value < min || value > max)
      throw new Error(`"${key}" must be a whole number from ${min} to ${max}`);
  }
  return policy;
}

/** Deny rules win over ask rules, ask over allow; then the default. */
export function decideCall(policy: McpGatePolicy, tool: string, hints: ToolHints | undefined): Verdict {
  const find = (rules: string[]) => rules.find((rule) => globOf(rule).test(tool));
  const deny = find(policy.deny);
  if (deny) return { action: 'deny', rule: deny, reason: `Denied by the gate policy rule ${deny}` };
  const ask = find(policy.ask);
  if (ask) return { action: 'ask', rule: ask, reason: '' };
  const allow = find(policy.allow);
  if (allow) return { action: 'allow', rule: allow, reason: '' };
  if (policy.default === 'annotations') {
    return hints?.readOnlyHint === true
      ? { action: 'allow', rule: tool, reason: '' }
      : { action: 'ask', rule: tool, reason: '' };
  }
  const reason = policy.default === 'deny' ? "Denied by the gate policy's default" : '';
  return { action: policy.default, rule: tool, reason };
}
