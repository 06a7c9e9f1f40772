import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildGateway } from '@beckon/server/http/gateway';
import type { FastifyInstance } from 'fastify';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { startTestServer, type TestServer } from '../harness';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const webDir = path.join(root, 'web');
export const webDist = path.join(webDir, 'dist');

/**
 * The few browser globals that code passed to page.evaluate uses (the tests compile without the
 * DOM library): inside such a function, `const w = globalThis as unknown as BrowserGlobals`.
 */
export type BrowserGlobals = {
  document: {
    documentElement: { scrollWidth: number; scrollHeight: number };
    getElementById: (id: string) => { textContent: string | null } | null;
    querySelectorAll: (selector: string) => { length: number };
  };
  localStorage: { setItem: (key: string, value: string) => void; getItem: (key: string) => string | null };
  innerWidth: number;
  scrollBy: (x: number, y: number) => void;
  requestAnimationFrame: (callback: () => void) => number;
  performance: { now: () => number };
  PerformanceObserver: new (
    callback: (list: { getEntries: () => { duration: number }[] }) => void,
  ) => { observe: (options: { type: string; buffered?: boolean }) => void; disconnect: () => void };
  navigator: {
    serviceWorker: {
      register: (url: string) => Promise<unknown>;
      ready: Promise<{ getNotifications: () => Promise<{ title: string; body: string; tag: string }[]> }>;
    };
  };
};

/** Debian's chromium; never a downloaded browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
];

function newestMtime(target: string): number {
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

/** Builds the dashboard when web/dist is missing or older than its sources. */
export function ensureDashboardBuilt(): void {
  const index = path.join(webDist, 'index.html');
  const sources = ['src', 'index.html', 'vite.config.ts', 'package.json'].map((p) => path.join(webDir, p));
  const newest = Math.max(...sources.filter(existsSync).map(newestMtime));
  if (existsSync(index) && statSync(index).mtimeMs >= newest) return;
  // NODE_ENV is "test" here: without this, Vite would build React's development bundle.
  const result = spawnSync('pnpm', ['--filter', '@beckon/web', 'build'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (result.status !== 0) {
    throw new Error(
      `building the dashboard failed:\n${result.stdout}\n${result.stderr}\n${result.error ?? ''}`,
    );
  }
}

export type Dashboard = {
  origin: string;
  browser: Browser;
  /** A browser context (cookies, storage) of the given width, optionally signed in already. */
  context: (options: { width: number; height?: number; token?: string }) => Promise<BrowserContext>;
  /** The open pages of every context (for screenshots of a failure). */
  pages: () => Page[];
  /** What the browser refused under the dashboard's Content-Security-Policy (should stay empty). */
  cspViolations: string[];
  close: () => Promise<void>;
};

/**
 * The gateway of `pnpm start` in front of the test servers (on `port`, when the server's APP_URL
 * must name it), and a headless chromium.
 */
export async function startDashboard(server: TestServer, port = 0): Promise<Dashboard> {
  const gateway: FastifyInstance = await buildGateway(
    server.deps.log,
    { resource: server.resource.baseUrl, auth: server.auth.baseUrl },
    webDist,
  );
  await gateway.listen({ host: '127.0.0.1', port });
  const address = gateway.server.address();
  if (!address || typeof address === 'string') throw new Error('no gateway address');
  const origin = `http://127.0.0.1:${address.port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  const contexts: BrowserContext[] = [];
  const cspViolations: string[] = [];
  return {
    cspViolations,
    origin,
    browser,
    async context({ width, height = 900, token }) {
      const context = await browser.newContext({
        viewport: { width, height },
        baseURL: origin,
        locale: 'en-US',
        timezoneId: 'UTC',
      });
      context.setDefaultTimeout(15_000);
      // Uncaught errors in the page are test failures waiting to be explained: print them.
      context.on('weberror', (error) => console.error(`page error: ${error.error().stack ?? error.error()}`));
      context.on('console', (message) => {
        if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
      });
      if (token) {
        // Runs in every document, including about:blank, where storage is off limits.
        await context.addInitScript((t) => {
          try {
            (globalThis as unknown as BrowserGlobals).localStorage.setItem('beckon.token', t);
          } catch {}
        }, token);
      }
      contexts.push(context);
      return context;
    },
    pages: () => contexts.flatMap((context) => context.pages()),
    async close() {
      for (const context of contexts) await context.close().catch(() => {});
      await browser.close();
      await gateway.close();
    },
  };
}

/**
 * Registers the dashboard's service worker in `page` and answers a function that hands it a push
 * through the DevTools protocol, as the browser would: headless chromium has no push service to
 * subscribe to.
 */
export async function serviceWorkerPushes(
  context: BrowserContext,
  page: Page,
  origin: string,
): Promise<(push: object) => Promise<unknown>> {
  const cdp = await context.newCDPSession(page);
  // The registration's id, as the browser reports it (again after any update of the worker).
  let registrationId: string | undefined;
  const registered = new Promise<void>((resolve) =>
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const ours = registrations.find((r) => r.scopeURL === `${origin}/` && !r.isDeleted);
      if (!ours) return;
      registrationId = ours.registrationId;
      resolve();
    }),
  );
  await cdp.send('ServiceWorker.enable');
  await page.evaluate(async () => {
    const { navigator } = globalThis as unknown as BrowserGlobals;
    await navigator.serviceWorker.register('/sw.js');
    await navigator.serviceWorker.ready;
  });
  await registered;
  return (push) =>
    cdp.send('ServiceWorker.deliverPushMessage', {
      origin,
      registrationId: registrationId as string,
      data: JSON.stringify(push),
    });
}

/**
 * Screenshots for the README go to docs/screenshots/ when missing or with UPDATE_SCREENSHOTS=1
 * (so a test run does not rewrite tracked images); otherwise to a temporary directory.
 */
export async function screenshot(page: Page, name: string): Promise<string> {
  const docs = path.join(root, 'docs', 'screenshots');
  const target = path.join(docs, `${name}.png`);
  const dir = process.env.UPDATE_SCREENSHOTS === '1' || !existsSync(target) ? docs : tmpdir();
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** The texts an element's aria-describedby points to (how a screen reader hears its error). */
export const description = (page: Page, label: string) =>
  page.getByLabel(label).evaluate((element) => {
    const w = globalThis as unknown as BrowserGlobals;
    return (element.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id: string) => w.document.getElementById(id)?.textContent ?? '')
      .join(' ');
  });

/** Whether the page is wider than its viewport (horizontal scrolling on a phone). */
export const overflowsHorizontally = (page: Page) =>
  page.evaluate(() => {
    const w = globalThis as unknown as BrowserGlobals;
    return w.document.documentElement.scrollWidth > w.innerWidth;
  });

/**
 * The server and dashboard of one browser test file: started before its tests, a screenshot of
 * every open page when a test fails (paths in the output), and no Content-Security-Policy
 * violation of the dashboard's by the end (gateway.ts).
 */
export function dashboardPerFile(name: string): { server: TestServer; dashboard: Dashboard } {
  const shared = {} as { server: TestServer; dashboard: Dashboard };
  beforeAll(async () => {
    ensureDashboardBuilt();
    shared.server = await startTestServer();
    shared.dashboard = await startDashboard(shared.server);
  }, 240_000);
  afterEach(async (context) => {
    if (context.task.result?.state !== 'fail') return;
    for (const page of shared.dashboard?.pages() ?? []) {
      const file = path.join(tmpdir(), `beckon-${name}-failure-${Date.now()}.png`);
      await page.screenshot({ path: file, fullPage: true }).catch(() => {});
      console.log(`screenshot of ${page.url()}: ${file}`);
    }
  });
  // Closing once took over a minute in a loaded CI run (assignment.test.ts): a slow step names itself.
  afterAll(async () => {
    const refused = shared.dashboard?.cspViolations ?? [];
    await noteIfSlow(`${name}: closing the browser and gateway`, () => shared.dashboard?.close());
    await noteIfSlow(`${name}: closing the server`, () => shared.server?.close());
    expect(refused).toEqual([]);
  }, 150_000);
  return shared;
}

async function noteIfSlow(step: string, run: () => Promise<unknown> | undefined) {
  const started = Date.now();
  const timer = setInterval(
    () => console.warn(`${step}: still waiting after ${Date.now() - started} ms`),
    10_000,
  );
  try {
    await run();
  } finally {
    clearInterval(timer);
  }
}
