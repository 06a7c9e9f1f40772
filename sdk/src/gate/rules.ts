import { type PathContext, pathMatches } from './paths';
import { hasSubstitution, splitCommands } from './shell';

/** A tool call as a coding agent's hook sees it. */
export type ToolCall = { tool: string; input: Record<string, unknown> };

/** A permission rule in Claude Code's syntax: `Tool`, `Tool(specifier)`, `mcp__server__*`. */
export type Rule = { text: string; tool: RegExp; specifier: string | null };

const RULE = /^([^()\s]+)(?:\((.*)\))?$/s;

/** Tools whose rules name files (Edit rules cover every editing tool, Read rules the reading ones). */
const FILE_RULES: Record<string, string[]> = {
  Edit: ['Edit', 'Write', 'MultiEdit', 'NotebookEdit'],
  Write: ['Write'],
  MultiEdit: ['MultiEdit'],
  NotebookEdit: ['NotebookEdit'],
  Read: ['Read', 'Grep', 'Glob', 'LS'],
  Grep: ['Grep'],
  Glob: ['Glob'],
};

const escapeRegExp = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
const wildcard = (pattern: string) => new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, 's');

/** Parses one rule; throws on one that is not `Tool` or `Tool(specifier)`. */
export function parseRule(text: string): Rule {
  const match = RULE.exec(text.trim());
  if (!match) throw new Error(`"${text}" is not a rule: write Tool or Tool(specifier)`);
  const [, tool = '', specifier] = match;
  // `mcp__server` alone covers every tool of that server.
  const toolPattern =
    /^mcp__[^_]+(?:_[^_]+)*$/.test(tool) && !tool.slice(5).includes('__') ? `${tool}__*` : tool;
  const spec = specifier === undefined || specifier === '*' || specifier === '' ? null : specifier;
  return { text: text.trim(), tool: wildcard(toolPattern), specifier: spec };
}

/**
 * A Bash specifier as a pattern over one command: `*` spans anything (spaces included); a
 * trailing ` *` (or the older `:*`) also matches the bare command.
 */
function commandPattern(specifier: string): RegExp {
  const legacy = specifier.endsWith(':*') ? `${specifier.slice(0, -2)} *` : specifier;
  const source = legacy.split('*').map(escapeRegExp).join('.*');
  return new RegExp(`^${legacy.endsWith(' *') ? `${source.slice(0, -3)}(?: .*)?` : source}$`, 's');
}

const firstString = (input: Record<string, unknown>, keys: string[]) => {
  for (const key of keys) if (typeof input[key] === 'string') return input[key] as string;
  return undefined;
};

/** The file a call names (absolute in Claude Code's events), or the directory it searches. */
export const fileOf = (call: ToolCall, cwd: string) =>
  firstString(call.input, ['file_path', 'notebook_path', 'path']) ?? cwd;

/** The string a non-file, non-shell rule's specifier is matched against. */
const subjectOf = (call: ToolCall) =>
  firstString(call.input, ['subagent_type', 'skill', 'command', 'url', 'query', 'pattern', 'prompt']);

/** How a specifier applies to a call; `part` is one simple command of a Bash call. */
function specifierMatches(rule: Rule, call: ToolCall, ctx: PathContext, part?: string): boolean {
  const spec = rule.specifier;
  if (spec === null) return true;
  const ruleTool = rule.text.slice(0, rule.text.indexOf('('));
  if (call.tool === 'Bash') {
    const command = part ?? (typeof call.input.command === 'string' ? call.input.command : '');
    return commandPattern(spec).test(command.trim());
  }
  if (FILE_RULES[ruleTool]) return pathMatches(spec, fileOf(call, ctx.cwd), ctx);
  if (call.tool === 'WebFetch' && spec.startsWith('domain:')) {
    try {
      return wildcard(spec.slice('domain:'.length)).test(new URL(String(call.input.url)).hostname);
    } catch {
      return false;
    }
  }
  const subject = subjectOf(call);
  return subject !== undefined && wildcard(spec).test(subject);
}

/** Whether the rule names the call's tool (an Edit rule also names Write, MultiEdit...). */
function namesTool(rule: Rule, tool: string): boolean {
  if (rule.tool.test(tool)) return true;
  const ruleTool = rule.specifier === null ? rule.text : rule.text.slice(0, rule.text.indexOf('('));
  return FILE_RULES[ruleTool]?.includes(tool) ?? false;
}

/**
 * Whether a deny or ask rule covers the call: the whole command line or any one of its commands
 * (so `Bash(rm -rf *)` catches `cd / && rm -rf x`).
 */
export function coversAny(rule: Rule, call: ToolCall, ctx: PathContext): boolean {
  if (!namesTool(rule, call.tool)) return false;
  if (call.tool !== 'Bash' || rule.specifier === null) return specifierMatches(rule, call, ctx);
  const line = typeof call.input.command === 'string' ? call.input.command : '';
  return (
    specifierMatches(rule, call, ctx, line) ||
    splitCommands(line).some((part) => specifierMatches(rule, call, ctx, part))
  );
}

/**
 * The allow rule under which the call may run: for a command line, every one of its commands
 * must be allowed (by any allow rule), and none may hide a substitution (`$(…)`, backticks).
 */
export function allowedBy(rules: Rule[], call: ToolCall, ctx: PathContext): Rule | null {
  const naming = rules.filter((rule) => namesTool(rule, call.tool));
  if (call.tool !== 'Bash') return naming.find((rule) => specifierMatches(rule, call, ctx)) ?? null;
  const whole = naming.find((rule) => rule.specifier === null);
  if (whole) return whole;
  const line = typeof call.input.command === 'string' ? call.input.command : '';
  if (hasSubstitution(line)) return null;
  const parts = splitCommands(line);
  if (parts.length === 0) return null;
  const each = parts.map((part) => naming.find((rule) => specifierMatches(rule, call, ctx, part)));
  return each.every((rule) => rule !== undefined) ? (each[0] as Rule) : null;
}
