// postgres.js is used through its public API only; what Beckon changes inside it is the patch
// (patches/postgres@3.4.9.patch, listed in patches/README.md). This fails when an upgrade drops
// it unnoticed; what each change mends is checked by tests/src/foundation/database-unavailable.test.ts.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
// Its CommonJS entry is cjs/src/index.js: the package root is three directories up.
const root = path.resolve(path.dirname(require.resolve('postgres')), '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

describe('the postgres.js patch', () => {
  it('names the installed version and is applied to both builds', () => {
    const { version } = JSON.parse(read('package.json')) as { version: string };
    expect(version, 'the patch names this exact version: redo or drop it with the upgrade').toBe('3.4.9');
    for (const build of ['src', 'cjs/src']) {
      for (const file of ['connection.js', 'index.js']) {
        expect(
          read(`${build}/${file}`).match(/Beckon patch/g),
          `${build}/${file} is not patched`,
        ).toHaveLength(2);
      }
    }
  });
});
