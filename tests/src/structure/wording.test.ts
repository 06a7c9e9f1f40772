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

describe('the wording of the repository', () => {
  it('tells work history apart from product words', () => {
    const history = [
      ['Session', ' 6: creation'],
      ['figures of ', 'sessions 1–2'],
      ['(', 'issue 19', "'s other steps)"],
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
    const missing = texts().flatMap(({ file, lines }) =>
      lines.flatMap((line, i) =>
        [...line.matchAll(NAMED_PATH)]
          .map((match) => match[1] as string)
          .filter((named) => !bases.some((base) => existsSync(path.join(base, named))))
          .map((named) => `${file}:${i + 1}: ${named}`),
      ),
    );
    expect(missing).toEqual([]);
  });
});
