import type { Assignee } from '../types';
import type { PathContext } from './paths';
import { allowedBy, coversAny, parseRule, type Rule, type ToolCall } from './rules';

/** What the gate does with a call: let it run, refuse it, or ask a person through Beckon. */
export type GateAction = 'allow' | 'deny' | 'ask';

/**
 * A gate policy, in the shape of Claude Code's permission settings (`.beckon/gate.json`). Deny
 * rules win over ask rules, ask rules over allow rules; a call no rule covers gets `default`.
 */
export type GatePolicy = {
  allow?: string[];
  deny?: string[];
  ask?: string[];
  /** For calls no rule covers (default `ask`). */
  default?: GateAction;
  /** How long a person has to decide (default 300). */
  timeout_seconds?: number;
  /**
   * When nobody decided in time, or Beckon cannot be reached: `deny` (default), or `ask`: the
   * agent's own prompt (Claude Code's permission dialog). Never an allow.
   */
  on_timeout?: 'deny' | 'ask';
  /** The N of "allow for N minutes" (default 30). */
  grant_minutes?: number;
  /** Who decides (default: everyone who may answer the organization's items). */
  assignees?: Assignee[];
  /** The channel of the questions, by name. */
  channel?: string;
};

export const GATE_DEFAULTS = {
  default: 'ask',
  timeout_seconds: 300,
  on_timeout: 'deny',
  grant_minutes: 30,
} as const;

/** A policy checked and its rules parsed, ready to decide. */
export type CompiledPolicy = Required<
  Pick<GatePolicy, 'default' | 'timeout_seconds' | 'on_timeout' | 'grant_minutes'>
> &
  Pick<GatePolicy, 'assignees' | 'channel'> & { rules: { allow: Rule[]; deny: Rule[]; ask: Rule[] } };

export class PolicyError extends Error {}

const KEYS = [
  'allow',
  'deny',
  'ask',
  'default',
  'timeout_seconds',
  'on_timeout',
  'grant_minutes',
  'assignees',
  'channel',
  '$schema',
];

function list(value: unknown, name: string): Rule[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((rule) => typeof rule !== 'string'))
    throw new PolicyError(`"${name}" must be a list of rules`);
  return value.map((rule: string) => {
    try {
      return parseRule(rule);
    } catch (error) {
      throw new PolicyError(`"${name}": ${(error as Error).message}`);
    }
  });
}

function bounded(value: unknown, name: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new PolicyError(`"${name}" must be a whole number from ${min} to ${max}`);
  return value;
}

/** Checks a policy (parsed JSON) and compiles its rules; throws a PolicyError naming what is wrong. */
export function compilePolicy(raw: unknown): CompiledPolicy {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new PolicyError('a policy is a JSON object');
  const policy = raw as Record<string, unknown>;
  const unknown = Object.keys(policy).filter((key) => !KEYS.includes(key));
  if (unknown.length)
    throw new PolicyError(`unknown key${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);
  const fallback = policy.default ?? GATE_DEFAULTS.default;
  if (fallback !== 'allow' && fallback !== 'deny' && fallback !== 'ask')
    throw new PolicyError('"default" must be "allow", "deny" or "ask"');
  const onTimeout = policy.on_timeout ?? GATE_DEFAULTS.on_timeout;
  if (onTimeout !== 'deny' && onTimeout !== 'ask')
    throw new PolicyError('"on_timeout" must be "deny" or "ask" (a call nobody decided on is never allowed)');
  if (policy.assignees !== undefined && !Array.isArray(policy.assignees))
    throw new PolicyError('"assignees" must be a list like [{"type":"role","name":"admin"}]');
  if (policy.channel !== undefined && typeof policy.channel !== 'string')
    throw new PolicyError('"channel" must be a channel name');
  return {
    rules: {
      allow: list(policy.allow, 'allow'),
      deny: list(policy.deny, 'deny'),
      ask: list(policy.ask, 'ask'),
    },
    default: fallback,
    timeout_seconds: bounded(
      policy.timeout_seconds,
      'timeout_seconds',
      10,
      7 * 86_400,
      GATE_DEFAULTS.timeout_seconds,
    ),
    on_timeout: onTimeout,
    grant_minutes: bounded(policy.grant_minutes, 'grant_minutes', 1, 1440, GATE_DEFAULTS.grant_minutes),
    ...(policy.assignees === undefined ? {} : { assignees: policy.assignees as Assignee[] }),
    ...(policy.channel === undefined ? {} : { channel: policy.channel as string }),
  };
}

/** A decision and the rule behind it: a policy rule, or for the default the call's own rule. */
export type GateVerdict = { action: GateAction; rule: string; byDefault: boolean };

/** The call's own rule, as narrow as the syntax allows: the grant key of a call no rule covers. */
export function exactRule(call: ToolCall, file: string | undefined): string {
  if (call.tool === 'Bash' && typeof call.input.command === 'string')
    return `Bash(${call.input.command.trim()})`;
  if (file !== undefined) return `${call.tool}(${file.startsWith('/') ? `/${file}` : file})`;
  if (call.tool === 'WebFetch' && typeof call.input.url === 'string') {
    try {
      return `WebFetch(domain:${new URL(call.input.url).hostname})`;
    } catch {}
  }
  return call.tool;
}

const FILE_TOOLS = new Set(['Read', 'Edit', 'Write', 'MultiEdit', 'NotebookEdit']);

/** Deny wins over ask, ask over allow; otherwise the policy's default. */
export function decide(policy: CompiledPolicy, call: ToolCall, ctx: PathContext): GateVerdict {
  const deny = policy.rules.deny.find((rule) => coversAny(rule, call, ctx));
  if (deny) return { action: 'deny', rule: deny.text, byDefault: false };
  const ask = policy.rules.ask.find((rule) => coversAny(rule, call, ctx));
  if (ask) return { action: 'ask', rule: ask.text, byDefault: false };
  const allow = allowedBy(policy.rules.allow, call, ctx);
  if (allow) return { action: 'allow', rule: allow.text, byDefault: false };
  const file = FILE_TOOLS.has(call.tool)
    ? ((call.input.file_path ?? call.input.notebook_path) as string | undefined)
    : undefined;
  return { action: policy.default, rule: exactRule(call, file), byDefault: true };
}
