import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GATE_DEFAULTS } from '../../gate/policy';

/** A policy to start from: reads and common read-only commands pass, risky ones ask, secrets stay shut. */
export const STARTER_POLICY = {
  allow: [
    'Read',
    'Grep',
    'Glob',
    'LS',
    'Bash(git status*)',
    'Bash(git diff*)',
    'Bash(git log*)',
    'Bash(ls*)',
    'Bash(npm test*)',
    'Edit(src/**)',
  ],
  deny: ['Bash(rm -rf /*)', 'Bash(sudo *)', 'Read(./.env)', 'Edit(./.env)'],
  ask: ['Bash(git push*)', 'Bash(rm *)', 'mcp__*'],
  ...GATE_DEFAULTS,
};

export type InstallOptions = {
  dir: string;
  /** The hook events to register (default PreToolUse). */
  events: string[];
  /** How Claude Code runs the gate (default `beckon gate`). */
  command: string;
  /** settings.local.json (not committed) instead of settings.json. */
  local: boolean;
};

type HookEntry = { matcher?: string; hooks?: Array<{ type?: string; command?: string; timeout?: number }> };
type Settings = { hooks?: Record<string, HookEntry[]> } & Record<string, unknown>;

async function readJson<T>(file: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return null;
    throw new Error(`${file} is not readable JSON: ${(error as Error).message}`);
  }
}

/**
 * Writes the Claude Code hook entries (keeping everything else in the settings file) and, when
 * there is none yet, the starter policy. Returns what it did, one line each.
 */
export async function install(options: InstallOptions): Promise<string[]> {
  const done: string[] = [];
  const policyFile = path.join(options.dir, '.beckon', 'gate.json');
  const policy = await readJson<{ timeout_seconds?: number }>(policyFile);
  if (policy) done.push(`kept ${policyFile}`);
  else {
    await mkdir(path.dirname(policyFile), { recursive: true });
    await writeFile(policyFile, `${JSON.stringify(STARTER_POLICY, null, 2)}\n`);
    done.push(`wrote ${policyFile}`);
  }
  // Claude Code ends a hook after its timeout: leave the gate the whole decision time and a margin.
  const timeout = (policy?.timeout_seconds ?? GATE_DEFAULTS.timeout_seconds) + 30;
  const settingsFile = path.join(
    options.dir,
    '.claude',
    options.local ? 'settings.local.json' : 'settings.json',
  );
  const settings: Settings = (await readJson<Settings>(settingsFile)) ?? {};
  settings.hooks ??= {};
  for (const event of options.events) {
    const entries = settings.hooks[event] ?? [];
    settings.hooks[event] = entries;
    const present = entries.some((entry) => entry.hooks?.some((hook) => hook.command === options.command));
    if (present) {
      done.push(`kept the ${event} hook in ${settingsFile}`);
      continue;
    }
    entries.push({ matcher: '*', hooks: [{ type: 'command', command: options.command, timeout }] });
    done.push(`added the ${event} hook to ${settingsFile}`);
  }
  await mkdir(path.dirname(settingsFile), { recursive: true });
  await writeFile(settingsFile, `${JSON.stringify(settings, null, 2)}\n`);
  return done;
}
