import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);

/**
 * Claude Code's own binary, the one the Claude Agent SDK runs: its platform package at the version
 * the SDK names (the workspace leaves these ~190 MB packages out of installs, see
 * pnpm-workspace.yaml), fetched once from the npm registry into the cache folder .ci/run uses for
 * Node. The tests drive it against a fake model (fake-anthropic.ts), so it never reaches Anthropic.
 */
export function claudeCodeBinary(): string {
  const sdk = JSON.parse(
    readFileSync(
      path.join(path.dirname(require.resolve('@anthropic-ai/claude-agent-sdk')), 'package.json'),
      'utf8',
    ),
  ) as { optionalDependencies: Record<string, string> };
  const name = `@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}`;
  const version = sdk.optionalDependencies[name];
  if (!version)
    throw new Error(`the Claude Agent SDK ships no binary for ${process.platform}-${process.arch}`);
  const cache = path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'beckon-ci');
  const folder = path.join(cache, `claude-code-${version}`);
  const binary = path.join(folder, 'claude');
  if (existsSync(binary)) return binary;
  const download = mkdtempSync(path.join(tmpdir(), 'claude-code-'));
  try {
    const tarball = execFileSync('npm', ['pack', '--silent', `${name}@${version}`], {
      cwd: download,
      encoding: 'utf8',
    }).trim();
    mkdirSync(path.join(download, 'package'));
    execFileSync('tar', ['-xzf', tarball, '-C', 'package', '--strip-components=1'], { cwd: download });
    mkdirSync(cache, { recursive: true });
    try {
      renameSync(path.join(download, 'package'), folder);
    } catch (error) {
      // Another test process fetched it at the same time: its copy is as good.
      if (!existsSync(binary)) throw error;
    }
  } finally {
    rmSync(download, { recursive: true, force: true });
  }
  return binary;
}
