import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../web/browser';

/** A page's script using the installed SDK, as a web app would (bundled for the browser). */
const ENTRY = `import { createClient, NotFoundError } from '@beckon/sdk';

let question;
window.beckonCheck = {
  async ask(token) {
    const beckon = createClient({ baseUrl: location.origin, token });
    question = await beckon.ask({
      title: 'Asked from a browser',
      form: { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?' }] },
    });
    const missing = await beckon.get('00000000-0000-7000-8000-000000000000').catch((error) => error);
    return { id: question.item.id, notFound: missing instanceof NotFoundError };
  },
  async wait() {
    const outcome = await question.waitForAnswer({ timeoutMs: 20000 });
    return { status: outcome.status, response: outcome.response };
  },
};
`;

/** Bundles ENTRY against `projectDir`'s node_modules for the browser (no Node built-ins allowed). */
export async function bundleForBrowser(projectDir: string): Promise<string> {
  const result = await build({
    stdin: { contents: ENTRY, resolveDir: projectDir, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/** The page's functions, called from the test. */
export type BrowserCheck = {
  ask: (token: string) => Promise<{ id: string; notFound: boolean }>;
  wait: () => Promise<unknown>;
};

/**
 * Opens a page on the API's origin (its HTML and script are answered by the browser's request
 * interception, so the server never sees them) and hands `drive` the page's check functions.
 */
export async function inChromium<T>(
  origin: string,
  bundle: string,
  drive: (check: BrowserCheck) => Promise<T>,
): Promise<{ result: T; requested: string[]; problems: string[] }> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  try {
    const page = await browser.newPage();
    const requested: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => problems.push(error.message));
    await page.route(`${origin}/sdk-check/**`, (route) => {
      const script = route.request().url().endsWith('.js');
      return route.fulfill({
        contentType: script ? 'text/javascript' : 'text/html',
        body: script
          ? bundle
          : '<!doctype html><title>SDK check</title><script type="module" src="/sdk-check/app.js"></script>',
      });
    });
    await page.goto(`${origin}/sdk-check/index.html`);
    await page.waitForFunction(() => 'beckonCheck' in globalThis);
    type PageGlobals = { beckonCheck: Record<string, (token?: string) => unknown> };
    const check = (name: 'ask' | 'wait', token?: string) =>
      page.evaluate(([fn, t]) => (globalThis as unknown as PageGlobals).beckonCheck[fn]!(t), [
        name,
        token,
      ] as const);
    const result = await drive({
      ask: (token) => check('ask', token) as ReturnType<BrowserCheck['ask']>,
      wait: () => check('wait'),
    });
    return { result, requested, problems };
  } finally {
    await browser.close();
  }
}
