import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const self = path.relative(root, fileURLToPath(import.meta.url));

/** The repository's files: tracked, and new ones git does not ignore (so they fail before a commit). */
function repositoryFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return [...new Set(listed.split('\0'))].filter(
    (file) => file !== '' && !file.split('/').includes('node_modules') && existsSync(path.join(root, file)),
  );
}

/** Text files only (a NUL byte marks a binary: the screenshots), this one left out. */
function texts(): { file: string; lines: string[] }[] {
  return repositoryFiles().flatMap((file) => {
    if (file === self) return [];
    const buffer = readFileSync(path.join(root, file));
    return buffer.includes(0) ? [] : [{ file, lines: buffer.toString('utf8').split('\n') }];
  });
}

/**
 * Words about how the project was worked on rather than about the product: a numbered work
 * session, a numbered issue, the code "before the session". Product words stay free: a session
 * token, a Claude Code `session_id`, zod's `issues`, an upstream bug as `owner/repo#123`.
 */
const WORK_HISTORY: RegExp[] = [
  /\b(?:work )?sessions? \d+(?:\s*(?:[-–]|and|to)\s*\d+)?\b/i,
  /\bissues? #?\d+\b/i,
  /\bpre-session\b/i,
  /\b(?:this|that|the previous|the next|an earlier|a later|other) (?:work )?sessions?(?:'s)? (?:code|work|changes?|merges?|figures|machine|builds)\b/i,
  /\btonight's\b/i,
];

const historyIn = (line: string) => WORK_HISTORY.some((pattern) => pattern.test(line));

/** Paths a file names (`docs/api.md`, a source file under a package's `src/`), which must exist. */
const NAMED_PATH =
  /(?<![\w./@-])((?:server|contracts|web|sdk|db|mcp|tests)\/src\/[\w./-]*[\w-]\.(?:tsx?|mjs|json|sql)|(?:docs|bench|scripts)\/[\w./-]*[\w-]\.(?:md|ts|mjs))\b/g;
/** A path with a folder in a comment (//, *, #, --) or a doc (`modules/items/create-item.ts`): a file's path ends so. */
const PARTIAL_PATH = /(?<![\w./@-])((?:[\w.-]+\/)+[\w.-]+\.(?:tsx?|mjs|md|sql|py))\b/g;
/** Build output and installed packages, which a checkout does not hold. */
const BUILT = /(?:^|\/)(?:dist|\.generated|node_modules)\//;
const isProse = (file: string, line: string) => file.endsWith('.md') || /^\s*(?:\/\/|\/?\*|#|--)/.test(line);

describe('the wording of the repository', () => {
  it('tells work history apart from product words', () => {
    const history = [
      ['Session', ' 6: creation'],
      ['figures of ', 'sessions 1–2'],
      ['(', 'issue', ' 19', "'s other steps)"],
      ['see ', 'issue #', '3'],
      ['the ', 'pre-', 'session commit'],
      ['beside ', 'this session', "'s code"],
      ['on ', "tonight's", ' machine'],
    ].map((parts) => parts.join(''));
    const product = [
      'a session token of the dashboard',
      "session_id: 'session-1'",
      'for (const issue of result.error.issues)',
      'Deploy tonight?',
      'revoke this session',
      'upstream bug porsager/postgres#1208',
    ];
    expect(history.filter((line) => !historyIn(line))).toEqual([]);
    expect(product.filter(historyIn)).toEqual([]);
  });

  it('speaks of the product, never of work sessions or issue numbers', () => {
    const found = texts().flatMap(({ file, lines }) =>
      lines.flatMap((line, i) => (historyIn(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });

  it('names only files that exist', () => {
    // From the root, or from a package's folder (docs draw each package's tree from its folder).
    const folders = readdirSync(root, { withFileTypes: true }).filter((entry) => entry.isDirectory());
    const bases = [root, ...folders.map((entry) => path.join(root, entry.name))];
    const all = texts();
    const files = repositoryFiles().map((file) => `/${file}`);
    const exists = (file: string, named: string) =>
      [...bases, path.join(root, path.dirname(file))].some((base) => existsSync(path.join(base, named))) ||
      files.some((known) => known.endsWith(`/${named.replace(/^\.\//, '')}`));
    const missing = all.flatMap(({ file, lines }) =>
      lines.flatMap((line, i) => {
        const named = [...line.matchAll(NAMED_PATH)].map((match) => match[1] as string);
        const partial = isProse(file, line)
          ? [...line.matchAll(PARTIAL_PATH)].map((match) => match[1] as string)
          : [];
        return [...new Set([...named, ...partial])]
          .filter((ref) => !BUILT.test(ref) && !exists(file, ref))
          .map((ref) => `${file}:${i + 1}: ${ref}`);
      }),
    );
    expect(missing).toEqual([]);
  });
});
