import { cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_DIR, runProgram } from './tools';

/**
 * The release procedure of docs/releasing.md, step "version", on a copy of the workspace's
 * manifests and changeset configuration: one changeset bumps both published packages (they are
 * versioned together) and writes their changelogs; the private packages stay as they are.
 */
const require = createRequire(import.meta.url);
const changesetBin = path.join(
  path.dirname(require.resolve('@changesets/cli/package.json', { paths: [REPO_DIR] })),
  'bin.js',
);
const COPIED = [
  'package.json',
  'pnpm-workspace.yaml',
  '.changeset/config.json',
  'sdk/package.json',
  'sdk/CHANGELOG.md',
  'mcp/package.json',
  'mcp/CHANGELOG.md',
  'server/package.json',
  'db/package.json',
  'web/package.json',
  'tests/package.json',
];

let copy: string;
beforeAll(async () => {
  copy = await mkdtemp(path.join(tmpdir(), 'beckon-release-'));
  for (const file of COPIED) {
    await mkdir(path.dirname(path.join(copy, file)), { recursive: true });
    await cp(path.join(REPO_DIR, file), path.join(copy, file));
  }
});
afterAll(async () => {
  if (copy) await rm(copy, { recursive: true, force: true });
});

const manifest = async (dir: string) =>
  JSON.parse(await readFile(path.join(copy, dir, 'package.json'), 'utf8')) as { version?: string };

describe('changeset version', () => {
  it('bumps @beckon/sdk and @beckon/mcp together and writes both changelogs', async () => {
    const before = (await manifest('sdk')).version!;
    expect((await manifest('mcp')).version).toBe(before);
    await writeFile(
      path.join(copy, '.changeset/wait-for-many.md'),
      '---\n"@beckon/sdk": minor\n---\n\nwaitForAnswer accepts several items.\n',
    );
    const server = await readFile(path.join(copy, 'server/package.json'), 'utf8');

    const run = await runProgram(process.execPath, [changesetBin, 'version'], { cwd: copy });
    expect(run.code, run.stderr).toBe(0);

    const [major, minor] = before.split('.').map(Number);
    const next = `${major}.${minor! + 1}.0`;
    expect((await manifest('sdk')).version).toBe(next);
    expect((await manifest('mcp')).version).toBe(next);
    const sdkLog = await readFile(path.join(copy, 'sdk/CHANGELOG.md'), 'utf8');
    expect(sdkLog).toMatch(
      new RegExp(`## ${next.replaceAll('.', '\\.')}[\\s\\S]*waitForAnswer accepts several items`),
    );
    expect(sdkLog).toContain(`## ${before}`);
    expect(await readFile(path.join(copy, 'mcp/CHANGELOG.md'), 'utf8')).toContain(`## ${next}`);
    expect(await readFile(path.join(copy, 'server/package.json'), 'utf8')).toBe(server);
    await expect(stat(path.join(copy, '.changeset/wait-for-many.md'))).rejects.toThrow();
  });
});
