import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The deployment's processes started exactly as operators start them: the commands of the root
 * package.json's scripts (`start:resource`, `start:auth`, `worker`, `db:migrate`), so what runs
 * here is whatever those scripts run (the compiled build once they point at it).
 */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const scripts = (
  JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

export type ScriptProcess = {
  script: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  /** kill -9 of the script's whole process group (a runner such as tsx keeps the program in a child). */
  kill: () => void;
  /** SIGTERM (the program stops cleanly), SIGKILL to the group after `graceMs`; resolves on exit. */
  stop: (graceMs?: number) => Promise<void>;
};

/**
 * Runs `pnpm run <script>`'s command as pnpm would (a shell in the repository root, with
 * node_modules/.bin on PATH) but without pnpm in between, in a process group of its own. Output
 * is piped: read it from `child.stdout` / `child.stderr`.
 */
export function runScript(script: string, env: Record<string, string>): ScriptProcess {
  const command = scripts[script];
  if (!command) throw new Error(`package.json has no script "${script}"`);
  const child = spawn('sh', ['-c', command], {
    cwd: root,
    detached: true,
    env: {
      ...process.env,
      PATH: `${path.join(root, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH ?? ''}`,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  /** Signals every process of the group; false when none is left. */
  const signalGroup = (signal: NodeJS.Signals | 0) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
      return true;
    } catch {
      return false;
    }
  };
  const kill = () => void signalGroup('SIGKILL');
  const stop = async (graceMs = 15_000) => {
    // To every member, as a terminal's Ctrl-C would; then until the last one is gone (the shell
    // may exit before the program it started).
    signalGroup('SIGTERM');
    const timer = setTimeout(kill, graceMs);
    await exited;
    while (signalGroup(0)) await new Promise((resolve) => setTimeout(resolve, 50));
    clearTimeout(timer);
  };
  return { script, child, exited, kill, stop };
}

/** Runs a script to its end (e.g. `db:migrate`); throws with its output when it fails. */
export async function runScriptToEnd(script: string, env: Record<string, string>): Promise<void> {
  const run = runScript(script, env);
  let output = '';
  run.child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  run.child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const code = await run.exited;
  if (code !== 0) throw new Error(`${script} exited with ${code}:\n${output}`);
}

/** Resolves once `url` answers 2xx; throws when the process exits first or after `timeoutMs`. */
export async function untilHealthy(url: string, run: ScriptProcess, timeoutMs = 90_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; ; ) {
    if (run.child.exitCode !== null) throw new Error(`${run.script} exited with ${run.child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`${run.script} did not answer ${url}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
