import path from 'node:path';

/** Where relative paths and rules start from. */
export type PathContext = { cwd: string; projectDir: string; home: string };

/** A glob of gitignore's kind as a regular expression: `**` crosses directories, `*` and `?` do not. */
export function pathGlob(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    if (char === '*' && pattern[i + 1] === '*') {
      const slash = pattern[i + 2] === '/';
      source += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/**
 * Whether a file rule's specifier (Claude Code's `Read(…)` / `Edit(…)` syntax, gitignore
 * patterns) covers `file`: `//abs` from the filesystem root, `~/x` from the home directory, `/x`
 * from the project directory, `./x` or `x` from the working directory. A pattern without a slash
 * matches at any depth; a directory covers everything inside it.
 */
export function pathMatches(spec: string, file: string, ctx: PathContext): boolean {
  let base = ctx.cwd;
  let pattern = spec;
  if (spec.startsWith('//')) [base, pattern] = ['/', spec.slice(2)];
  else if (spec.startsWith('~/')) [base, pattern] = [ctx.home, spec.slice(2)];
  else if (spec.startsWith('/')) [base, pattern] = [ctx.projectDir, spec.slice(1)];
  else if (spec.startsWith('./')) pattern = spec.slice(2);
  const absolute = path.posix.resolve(ctx.cwd, file);
  const relative = path.posix.relative(path.posix.resolve(base), absolute);
  if (relative.startsWith('..') || path.posix.isAbsolute(relative)) return false;
  pattern = pattern.replace(/\/+$/, '');
  if (pattern === '' || pattern === '**') return true;
  const anyDepth = !pattern.includes('/');
  const glob = pathGlob(anyDepth ? `**/${pattern}` : pattern);
  // The file itself, or a directory holding it.
  const segments = relative.split('/');
  return segments.some((_, end) => glob.test(segments.slice(0, end + 1).join('/')));
}
