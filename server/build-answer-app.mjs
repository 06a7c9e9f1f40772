// @ts-check
import { mkdir, writeFile } from 'node:fs/promises';
import { sep } from 'node:path';
import { build } from 'esbuild';

// The MCP App's script (src/mcp/answer-app/page.js) with the ext-apps `App` class and what it
// needs, bundled for the browser into dist/answer-app.js, which src/mcp/app-page.ts puts in the
// page. Run by `pnpm build`, after tsdown, and by `pnpm dev` (web/scripts/dev.ts).

/**
 * zod's error messages in every language are half of the bundle and the page shows none of them:
 * its locale table is left out (the English messages zod sets up by itself stay).
 * @type {import('esbuild').Plugin}
 */
const withoutZodLocales = {
  name: 'without-zod-locales',
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, ({ importer }) =>
      importer.includes(`${sep}zod${sep}`) ? { path: 'zod-locales', namespace: 'empty' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: '' }));
  },
};

const { outputFiles = [] } = await build({
  entryPoints: [new URL('src/mcp/answer-app/page.js', import.meta.url).pathname],
  bundle: true,
  minify: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2022',
  legalComments: 'none',
  plugins: [withoutZodLocales],
  write: false,
});
// `</script` in a string of the bundle would end the element it sits in.
const script = outputFiles
  .map((file) => file.text)
  .join('')
  .replace(/<\/script/gi, '<\\/script');
await mkdir(new URL('dist/', import.meta.url), { recursive: true });
await writeFile(new URL('dist/answer-app.js', import.meta.url), script);
