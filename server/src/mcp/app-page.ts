import { readFile } from 'node:fs/promises';

/**
 * The HTML of the MCP App (`ui://beckon/answer`): one self-contained page, no external script or
 * style, so a host's default Content Security Policy is enough. Its script (answer-app/page.js)
 * runs the `@modelcontextprotocol/ext-apps` `App` class; `pnpm build` bundles it with what it
 * needs (server/build-answer-app.mjs), and the server reads the bundle once and keeps it.
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

// dist/answer-app.js, from src/mcp/ or from the compiled chunks beside it in server/dist/.
const BUNDLE = new URL(
  import.meta.url.endsWith('.ts') ? '../../dist/answer-app.js' : './answer-app.js',
  import.meta.url,
);

let script: Promise<string> | undefined;
/** The bundled script, read on first use; a failed read is tried again on the next one. */
const pageScript = () =>
  (script ??= readFile(BUNDLE, 'utf8').catch((error: unknown) => {
    script = undefined;
    throw new Error(`the MCP App's script is missing: run pnpm build (${String(error)})`);
  }));

/** What the page needs from the server: the answer tool as this client spells it, the item links. */
export type AppConfig = { answerTool: string; appUrl: string };

/** `<` escaped so no value can close the script element it sits in. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export const appPage = async (config: AppConfig) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Beckon</title><style>${STYLE}</style></head><body><main id="app"><p class="status">Waiting for the question…</p></main><script type="application/json" id="beckon-config">${scriptJson(config)}</script><script>${await pageScript()}</script></body></html>`;
