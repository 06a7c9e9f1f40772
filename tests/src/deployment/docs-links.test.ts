import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The documentation cites only what the repository holds: every relative link (and image) of
 * docs/*.md and the READMEs resolves to a file or folder here. The published packages' READMEs
 * (sdk, mcp) are read on the registry, away from the repository: they link nothing relative.
 */
const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const PUBLISHED = ['sdk/README.md', 'mcp/README.md'];

async function documents(): Promise<string[]> {
  const docs = (await readdir(path.join(REPO, 'docs'))).filter((name) => name.endsWith('.md'));
  const readmes = ['README.md', 'sdk/README.md', 'mcp/README.md', 'python/README.md'];
  return [...docs.map((name) => `docs/${name}`), ...readmes].filter((file) =>
    existsSync(path.join(REPO, file)),
  );
}

/** The targets of a Markdown file's inline links and images, outside code blocks and spans. */
function links(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1] ?? '');
}

const external = (target: string) => /^(https?:|mailto:)/.test(target);

describe('documentation links', () => {
  it('every relative link of docs/*.md and the READMEs resolves inside the repository', async () => {
    const broken: string[] = [];
    for (const file of await documents()) {
      const text = await readFile(path.join(REPO, file), 'utf8');
      for (const target of links(text)) {
        if (external(target) || target.startsWith('#')) continue;
        const relative = decodeURIComponent(target.split('#')[0] ?? '');
        const resolved = path.resolve(path.dirname(path.join(REPO, file)), relative);
        if (!resolved.startsWith(REPO) || !existsSync(resolved)) broken.push(`${file}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('the published packages’ READMEs link nothing relative (they are read on the registry)', async () => {
    for (const file of PUBLISHED) {
      const text = await readFile(path.join(REPO, file), 'utf8');
      const relative = links(text).filter((target) => !external(target) && !target.startsWith('#'));
      expect(relative, file).toEqual([]);
    }
  });

  it('the link check sees a broken link', () => {
    expect(links('see [a](missing.md), [b](https://x.test/) and `[c](code.md)`')).toEqual([
      'missing.md',
      'https://x.test/',
    ]);
  });
});
