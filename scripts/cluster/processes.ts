import type { ChildProcess } from 'node:child_process';
import { startScript } from '../../tests/src/harness/production';

/**
 * The deployment's processes started exactly as operators start them: the production scripts of
 * the root package.json (`start:resource`, `start:auth`, `worker`, `db:migrate`: the compiled
 * build, `node <file>`), through the one helper the tests use for them.
 */
export type ScriptProcess = {
  script: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Everything it wrote so far. */
  output: () => string;
  /** kill -9. */
  kill: () => void;
  /** SIGTERM (the process stops cleanly), SIGKILL after `graceMs`; resolves on exit. */
  stop: (graceMs?: number) => Promise<void>;
};

/** Starts a production script with this environment plus `env`. */
export function runScript(script: string, env: Record<string, string>): ScriptProcess {
  const { child, exited, output } = startScript(script, { env: { ...process.env, ...env } });
  const kill = () => void child.kill('SIGKILL');
  const stop = async (graceMs = 15_000) => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(kill, graceMs);
    await exited;
    clearTimeout(timer);
  };
  return { script, child, exited, output, kill, stop };
}

/** Runs a script to its end (e.g. `db:migrate`); throws with its output when it fails. */
export async function runScriptToEnd(script: string, env: Record<string, string>): Promise<void> {
  const run = runScript(script, env);
  const code = await run.exited;
  if (code !== 0) throw new Error(`${script} exited with ${code}:\n${run.output()}`);
}

/** Resolves once `url` answers 2xx; throws when the process exits first or after `timeoutMs`. */
export async function untilHealthy(url: string, run: ScriptProcess, timeoutMs = 90_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; ; ) {
    if (run.child.exitCode !== null) throw new Error(`${run.script} exited:\n${run.output()}`);
    if (Date.now() > deadline) throw new Error(`${run.script} did not answer ${url}:\n${run.output()}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
