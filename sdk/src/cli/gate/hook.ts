import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { type CompiledPolicy, compilePolicy, decide } from '../../gate/policy';
import type { ToolCall } from '../../gate/rules';
import type { HookDecision } from './output';

/** The fields of a hook event the gate reads (Claude Code's PreToolUse / PermissionRequest). */
export type HookEvent = {
  hook_event_name: string;
  tool_name: string;
  tool_input: Record<string, unknown>;
  cwd?: string;
  session_id?: string;
  tool_use_id?: string;
};

export class SetupError extends Error {}

export function parseEvent(text: string): HookEvent {
  let event: Partial<HookEvent>;
  try {
    event = JSON.parse(text) as Partial<HookEvent>;
  } catch {
    throw new SetupError('stdin is not JSON: run beckon gate as a PreToolUse or PermissionRequest hook');
  }
  if (typeof event?.tool_name !== 'string' || typeof event.hook_event_name !== 'string')
    throw new SetupError('the event on stdin has no hook_event_name or tool_name');
  const input = event.tool_input && typeof event.tool_input === 'object' ? event.tool_input : {};
  return { ...event, tool_input: input } as HookEvent;
}

/** The policy: `--policy FILE`, else `.beckon/gate.json` in the event's directory or the project's. */
export async function loadPolicy(
  given: string | undefined,
  event: HookEvent,
  env: Record<string, string | undefined>,
): Promise<{ policy: CompiledPolicy; projectDir: string }> {
  const dirs = [event.cwd, env.CLAUDE_PROJECT_DIR].filter((dir): dir is string => !!dir);
  const candidates = given
    ? [path.resolve(event.cwd ?? '.', given)]
    : dirs.map((d) => path.join(d, '.beckon', 'gate.json'));
  for (const file of candidates) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT' && !given) continue;
      throw new SetupError(`cannot read the policy ${file}: ${(error as Error).message}`);
    }
    try {
      const policy = compilePolicy(JSON.parse(text));
      const projectDir = given
        ? (env.CLAUDE_PROJECT_DIR ?? event.cwd ?? process.cwd())
        : path.dirname(path.dirname(file));
      return { policy, projectDir };
    } catch (error) {
      throw new SetupError(`the policy ${file} is not valid: ${(error as Error).message}`);
    }
  }
  throw new SetupError(
    `no policy: none of ${candidates.join(', ') || '.beckon/gate.json'} exists (run "beckon gate install", or pass --policy)`,
  );
}

export type Connection = { url: string | undefined; token: string | undefined };

/**
 * The gate's decision on one event: a rule's allow or deny at once, with nothing loaded beyond
 * the policy; an ask goes to Beckon (the client is loaded only then).
 */
export async function decideEvent(
  event: HookEvent,
  loaded: { policy: CompiledPolicy; projectDir: string },
  connection: Connection,
): Promise<HookDecision> {
  const { policy, projectDir } = loaded;
  const call: ToolCall = { tool: event.tool_name, input: event.tool_input };
  const cwd = event.cwd ?? process.cwd();
  const verdict = decide(policy, call, { cwd, projectDir, home: homedir() });
  const by = verdict.byDefault ? "the gate policy's default" : `the gate policy rule ${verdict.rule}`;
  if (verdict.action === 'allow') return { action: 'allow', reason: `Allowed by ${by}` };
  if (verdict.action === 'deny') return { action: 'deny', reason: `Denied by ${by}` };
  const { askPerson } = await import('./ask');
  return askPerson(event, call, verdict.rule, policy, connection);
}
