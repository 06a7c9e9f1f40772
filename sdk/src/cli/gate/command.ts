import { parseArgs } from 'node:util';
import { decideEvent, loadPolicy, parseEvent, SetupError } from './hook';
import { hookOutput } from './output';

/** The text of `beckon gate --help`. */
export const GATE_USAGE = `Usage: beckon gate [--policy FILE]          a hook: the event on stdin, the decision on stdout
       beckon gate install [--dir DIR] [--event PreToolUse|PermissionRequest]... [--command CMD] [--local]

A PreToolUse / PermissionRequest hook for Claude Code (and agents with the same contract): decides
each tool call by the policy (--policy, else .beckon/gate.json in the event's directory): deny rules,
then ask rules, then allow rules, then "default". "ask" asks people through Beckon (BECKON_URL,
BECKON_TOKEN) and waits up to timeout_seconds; then, or when Beckon cannot be reached, on_timeout.
install writes the hook into .claude/settings.json (settings.local.json with --local) and a starter
.beckon/gate.json when there is none.
`;

type Io = { out: (text: string) => void; err: (text: string) => void; stdin: () => Promise<string> };

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

const stdio: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  stdin: readStdin,
};

/** `beckon gate ...`: the exit code (0 with a decision; 1, a non-blocking error, for a broken setup). */
export async function gateCommand(argv: string[], env: Record<string, string | undefined>, io = stdio) {
  const [, sub, ...rest] = argv;
  try {
    if (sub === 'install') {
      const { values } = parseArgs({
        args: rest,
        options: {
          dir: { type: 'string' },
          event: { type: 'string', multiple: true },
          command: { type: 'string' },
          local: { type: 'boolean' },
        },
      });
      const events = values.event ?? ['PreToolUse'];
      const unknown = events.filter((e) => e !== 'PreToolUse' && e !== 'PermissionRequest');
      if (unknown.length)
        throw new SetupError(`--event must be PreToolUse or PermissionRequest, not ${unknown}`);
      const { install } = await import('./install');
      const done = await install({
        dir: values.dir ?? process.cwd(),
        events,
        command: values.command ?? 'beckon gate',
        local: values.local === true,
      });
      io.out(
        `${done.join('\n')}\nSet BECKON_URL and BECKON_TOKEN (an agent's API key) where Claude Code runs.\n`,
      );
      return 0;
    }
    const { values } = parseArgs({
      args: argv.slice(1),
      options: {
        policy: { type: 'string' },
        url: { type: 'string' },
        token: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      io.out(GATE_USAGE);
      return 0;
    }
    const event = parseEvent(await io.stdin());
    const loaded = await loadPolicy(values.policy, event, env);
    const decision = await decideEvent(event, loaded, {
      url: values.url ?? env.BECKON_URL,
      token: values.token ?? env.BECKON_TOKEN,
    });
    io.out(hookOutput(event.hook_event_name, decision));
    return 0;
  } catch (error) {
    io.err(`beckon gate: ${(error as Error).message}\n`);
    return 1;
  }
}
