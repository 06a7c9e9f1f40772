import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectOutput } from './child-output';
import { freePort } from './ports';

/**
 * The production scripts of the root package.json (`start:resource`, `start:auth`, `worker`,
 * `db:migrate`, `start:prod`, `start:gateway`), as the tests run them: each is `node <file>` of the
 * compiled build, started here with this Node and no shell between, so a signal reaches the
 * process itself.
 */
const REPO_DIR = fileURLToPath(new URL('../../..', import.meta.url));

const scripts: Record<string, string> = JSON.parse(
  readFileSync(new URL('package.json', `file://${REPO_DIR}`), 'utf8'),
).scripts;

/** The file a production script runs with plain `node` (throws for any other kind of script). */
export function scriptFile(name: string): string {
  const match = /^node (\S+)$/.exec(scripts[name] ?? '');
  if (!match?.[1]) throw new Error(`script ${name} is not \`node <file>\`: ${scripts[name]}`);
  return match[1];
}

/**
 * Starts a production script in `cwd` (the repository, or a deployed folder of the same layout:
 * server/ beside web/), with exactly `env` (nothing inherited unless passed).
 */
export function startScript(
  name: string,
  options: {
    env: NodeJS.ProcessEnv;
    cwd?: string;
    /** In a process group of its own, as a terminal runs a command (a signal to `-pid` reaches all of it). */
    group?: boolean;
    /** What follows the script's name (`pnpm org:plan acme team`). */
    args?: string[];
  },
) {
  const child = spawn(process.execPath, [scriptFile(name), ...(options.args ?? [])], {
    cwd: options.cwd ?? REPO_DIR,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.group === true,
  });
  const output = collectOutput(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, exited };
}

/**
 * `turbo run build` of the compiled server (cached when nothing changed). The global setup runs
 * it once before any test file, so tests never build it side by side.
 */
export function buildServer(): Promise<void> {
  const turbo = createRequire(import.meta.url).resolve('turbo/bin/turbo', { paths: [REPO_DIR] });
  const args = [turbo, 'run', 'build', '--filter=@beckon/server', '--output-logs=errors-only'];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd: REPO_DIR, timeout: 300_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`server build failed:\n${stdout}\n${stderr}`)) : resolve(),
    );
  });
}

/** A fresh data directory (`dirs` collects it for removal) and free ports for one `pnpm start`. */
export async function serviceSettings(prefix: string, dirs: string[]) {
  const dataDir = await mkdtemp(path.join(tmpdir(), prefix));
  dirs.push(dataDir);
  const [port, authPort, pgPort, webPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const env = {
    DATA_DIR: dataDir,
    PORT: String(port),
    AUTH_PORT: String(authPort),
    EMBEDDED_POSTGRES_PORT: String(pgPort),
    APP_URL: `http://127.0.0.1:${webPort}`,
    WEB_DIST: path.join(dataDir, 'no-dashboard-here'),
  };
  return { dataDir, env, port, authPort, pgPort, webPort };
}
