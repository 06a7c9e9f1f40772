import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_DIR = fileURLToPath(new URL('../../..', import.meta.url));
const require = createRequire(import.meta.url);

export type Run = { code: number; stdout: string; stderr: string };

/** Runs a program to its end (never rejects on a non-zero exit: the caller asserts on it). */
export function runProgram(
  file: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      {
        cwd: options.cwd,
        env: options.env ?? process.env,
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 32 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') return reject(error);
        resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
      },
    );
  });
}

/** The workspace's TypeScript compiler on a tsconfig: exit code and diagnostics. */
export async function tsc(tsconfig: string): Promise<{ code: number; output: string }> {
  const bin = path.join(path.dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
  const { code, stdout, stderr } = await runProgram(process.execPath, [
    bin,
    '-p',
    tsconfig,
    '--pretty',
    'false',
  ]);
  return { code, output: `${stdout}${stderr}` };
}

/** `pnpm build` of the publishable packages (turbo: cached when nothing changed). */
export async function buildPackages(): Promise<void> {
  const turbo = require.resolve('turbo/bin/turbo', { paths: [REPO_DIR] });
  const result = await runProgram(
    process.execPath,
    [turbo, 'run', 'build', '--filter=@beckon/sdk', '--filter=@beckon/mcp', '--output-logs=errors-only'],
    { cwd: REPO_DIR, timeoutMs: 300_000 },
  );
  if (result.code !== 0) throw new Error(`build failed:\n${result.stdout}\n${result.stderr}`);
}

/** `pnpm pack` of a workspace package into `destination`: the tarball's path. */
export async function pack(packageDir: string, destination: string): Promise<string> {
  const before = new Set(await readdir(destination));
  const result = await runProgram('pnpm', ['pack', '--pack-destination', destination], {
    cwd: path.join(REPO_DIR, packageDir),
  });
  if (result.code !== 0) throw new Error(`pnpm pack failed:\n${result.stdout}\n${result.stderr}`);
  const created = (await readdir(destination)).filter((f) => f.endsWith('.tgz') && !before.has(f));
  if (created.length !== 1) throw new Error(`pnpm pack made ${created.join(', ') || 'nothing'}`);
  return path.join(destination, created[0]!);
}

/** `npm install` of tarballs into a project outside the workspace, as a user would. */
export async function npmInstall(projectDir: string, tarballs: string[]): Promise<void> {
  const result = await runProgram(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...tarballs],
    { cwd: projectDir, timeoutMs: 240_000 },
  );
  if (result.code !== 0) throw new Error(`npm install failed:\n${result.stdout}\n${result.stderr}`);
}

/** `pnpm <these> <folder>`: the compiled server and its production dependencies (the Dockerfile's step). */
export const SERVER_DEPLOY = ['--filter', '@beckon/server', 'deploy', '--prod', '--no-optional'];
