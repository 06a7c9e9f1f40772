import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

/**
 * The HTML of the MCP App (`ui://beckon/answer`): one self-contained page, no external script or
 * style, so a host's default Content Security Policy is enough. Its script (answer-app/page.js)
 * runs the `@modelcontextprotocol/ext-apps` `App` class; it is bundled with its dependencies once
 * per process, on the first read, and kept in memory.
 */
const STYLE = `
:root{color-scheme:light dark;font-family:var(--font-sans,system-ui,sans-serif);color:var(--color-text-primary,CanvasText)}
body{margin:0;padding:12px;background:var(--color-background-primary,Canvas)}
h1{font-size:1.05rem;margin:0 0 4px}p{margin:0 0 8px;white-space:pre-wrap}
.status{color:var(--color-text-secondary,GrayText);font-size:.85rem;margin-bottom:8px}
label{display:block;margin:8px 0 2px;font-weight:600}.choice{font-weight:400;display:inline-block;margin-right:12px}
input[type=text],input[type=number],input[type=date],textarea,select{width:100%;box-sizing:border-box;padding:6px;font:inherit}
button{margin-top:12px;padding:6px 14px;font:inherit;cursor:pointer}.error{color:var(--color-text-danger,#b00020)}
`;

const PAGE_SCRIPT = fileURLToPath(new URL('./answer-app/page.js', import.meta.url));

/**
 * zod's error messages in every language are half of the bundle and the page shows none of them:
 * its locale table is left out (the English messages zod sets up by itself stay).
 */
const withoutZodLocales: Plugin = {
  name: 'without-zod-locales',
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, ({ importer }) =>
      importer.includes(`${sep}zod${sep}`) ? { path: 'zod-locales', namespace: 'empty' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: '' }));
  },
};

async function bundle(): Promise<string> {
  const { outputFiles = [] } = await build({
    entryPoints: [PAGE_SCRIPT],
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
  return outputFiles
    .map((file) => file.text)
    .join('')
    .replace(/<\/script/gi, '<\\/script');
}

let script: Promise<string> | undefined;
/** The bundled script: built on first use; a failed build is tried again on the next read. */
const pageScript = () =>
  (script ??= bundle().catch((error: unknown) => {
    script = undefined;
    throw error;
  }));

/** What the page needs from the server: the answer tool as this client spells it, the item links. */
export type AppConfig = { answerTool: string; appUrl: string };

/** `<` escaped so no value can close the script element it sits in. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export const appPage = async (config: AppConfig) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Beckon</title><style>${STYLE}</style></head><body><main id="app"><p class="status">Waiting for the question…</p></main><script type="application/json" id="beckon-config">${scriptJson(config)}</script><script>${await pageScript()}</script></body></html>`;
