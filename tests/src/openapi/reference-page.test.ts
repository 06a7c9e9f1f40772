import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';
import { CHROMIUM, CHROMIUM_ARGS } from '../web/browser';

/** /api/docs in a real browser: it renders under its CSP, and "Try it out" calls this server. */
let server: TestServer;
let browser: Browser;
let token: string;
let userId: string;

beforeAll(async () => {
  server = await startTestServer();
  const account = await new Factories(server.database.db).account('owner');
  token = account.token;
  userId = account.user.id;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the API reference page in a browser', () => {
  it('renders every operation, and "Try it out" sends the authorized request to this server', async () => {
    const document = (
      await server.resource.get<{
        paths: Record<string, Record<string, { operationId: string; tags: string[] }>>;
      }>('/api/openapi.json')
    ).body;
    const me = document.paths['/me']!.get!;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    // The page renders a few hundred operations: on a loaded machine that takes tens of seconds.
    context.setDefaultTimeout(60_000);
    const page = await context.newPage();
    const requested: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));

    await page.goto(`${server.resource.baseUrl}/api/docs`);
    await page.locator('.information-container .title', { hasText: 'Beckon API' }).waitFor();
    const documented = Object.values(document.paths).flatMap((item) =>
      Object.values(item).map((op) => `operations-${op.tags[0]!.replaceAll(' ', '_')}-${op.operationId}`),
    );
    // With this many operations Swagger UI renders only those near the viewport: scrolling to the
    // end must bring every one of them into the page.
    await page.locator('.opblock').first().waitFor();
    const seen = new Set<string>();
    for (let bottom = false; !bottom; ) {
      for (const id of await page.locator('.opblock').evaluateAll((blocks) => blocks.map((b) => b.id)))
        seen.add(id);
      // A string: the tests are compiled without the DOM's types.
      bottom = await page.evaluate<boolean>(`(() => {
        const end = scrollY + innerHeight >= document.documentElement.scrollHeight - 1;
        scrollBy(0, innerHeight / 2);
        return end;
      })()`);
      await page.waitForTimeout(50);
    }
    expect([...seen].sort()).toEqual([...documented].sort());
    await page.evaluate('scrollTo(0, 0)');

    await page.locator('button.authorize').first().click();
    await page.locator('.modal-ux input').fill(token);
    await page.locator('.modal-ux button.authorize').click();
    await page.locator('.modal-ux button.btn-done').click();

    const block = page.locator(`#operations-${me.tags[0]!.replaceAll(' ', '_')}-${me.operationId}`);
    await block.locator('.opblock-summary').first().click();
    await block.locator('button.execute').click();
    const live = block.locator('.live-responses-table .response');
    await live.locator('.response-col_status', { hasText: '200' }).waitFor();
    expect(await live.locator('.response-col_description').textContent()).toContain(userId);

    expect(problems).toEqual([]);
    const origin = new URL(server.resource.baseUrl).origin;
    expect(requested.filter((url) => !url.startsWith(origin) && !url.startsWith('data:'))).toEqual([]);
    expect(requested).toContain(`${origin}/api/me`);
    await context.close();
    // Swagger UI renders every operation with its examples: slow on a loaded machine.
  }, 180_000);
});
