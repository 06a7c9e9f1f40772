import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';
import { type BrowserGlobals, type Dashboard, ensureDashboardBuilt, startDashboard } from './browser';

let server: TestServer;
let dashboard: Dashboard;

beforeAll(async () => {
  ensureDashboardBuilt();
  server = await startTestServer({
    env: { DEV_LOGIN_ENABLED: 'true', IDP_A_CLIENT_ID: 'beckon-test', IDP_A_CLIENT_SECRET: 'secret' },
  });
  dashboard = await startDashboard(server);
}, 240_000);

afterAll(async () => {
  await dashboard?.close();
  await server?.close();
});

const storedToken = (page: import('playwright-core').Page) =>
  page.evaluate(() => (globalThis as unknown as BrowserGlobals).localStorage.getItem('beckon.token'));

describe('dashboard sign-in', () => {
  it('offers the enabled providers and the development sign-in; switches organization; signs out', async () => {
    const context = await dashboard.context({ width: 1280 });
    const page = await context.newPage();
    await page.goto('/');
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    // Only the provider that is configured (idp_a), pointing at the authorization process's start.
    expect(await page.getByRole('link', { name: 'GitHub' }).getAttribute('href')).toBe('/auth/oauth/idp_a');
    expect(await page.getByRole('link', { name: 'Google' }).count()).toBe(0);

    // A bad address is refused in the API's words, next to the field.
    await page.getByLabel('Email address (development)').fill('not-an-address');
    await page.getByRole('button', { name: 'Sign in without email' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByLabel('Email address (development)').getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('Email address (development)').fill('grace@example.com');
    await page.getByRole('button', { name: 'Sign in without email' }).click();
    await page.getByRole('tab', { name: 'Inbox', selected: true }).waitFor();
    const first = (await storedToken(page))!;
    const api = server.auth.as(first);
    const me = (await api.get<{ org: { id: string; name: string } }>('/auth/me')).body;

    // A second organization, then the switcher: a new session for it replaces the token.
    const team = await api.post<{ id: string }>('/auth/orgs', { name: 'Platform team' });
    expect(team.status).toBe(201);
    await page.getByRole('button', { name: /Switch organization/ }).click();
    await page.getByRole('menuitem', { name: /Platform team/ }).click();
    await page.getByRole('button', { name: 'Organization: Platform team. Switch organization' }).waitFor();
    const switched = (await storedToken(page))!;
    expect(switched).not.toBe(first);
    expect((await server.auth.as(switched).get<{ org: { id: string } }>('/auth/me')).body.org.id).toBe(
      team.body.id,
    );
    expect(me.org.id).not.toBe(team.body.id);

    // A new organization from the switcher: a blank name is refused next to the field, then the
    // dashboard moves into the organization it created.
    await page.getByRole('button', { name: /Switch organization/ }).click();
    await page.getByRole('menuitem', { name: 'New organization…' }).click();
    const dialog = page.getByRole('dialog', { name: 'New organization' });
    await dialog.getByRole('button', { name: 'Create and switch' }).click();
    await dialog.getByText('Organization name is required.').waitFor();
    expect(await dialog.getByLabel('Organization name').getAttribute('aria-invalid')).toBe('true');
    await dialog.getByLabel('Organization name').fill('Data science');
    await dialog.getByRole('button', { name: 'Create and switch' }).click();
    await page.getByRole('button', { name: 'Organization: Data science. Switch organization' }).waitFor();
    const created = (await storedToken(page))!;
    const createdMe = await server.auth
      .as(created)
      .get<{ org: { name: string; slug: string }; role: string }>('/auth/me');
    expect(createdMe.body).toMatchObject({
      org: { name: 'Data science', slug: 'data-science' },
      role: 'owner',
    });

    // Sign out ends the session on the server, not only in the browser.
    await page.getByRole('button', { name: 'Account' }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    expect(await storedToken(page)).toBeNull();
    expect((await server.auth.as(created).get('/auth/me')).status).toBe(401);
    expect((await server.auth.as(switched).get('/auth/me')).status).toBe(200);
  }, 60_000);

  it('lands an external sign-in started in this browser at once, and clears the fragment', async () => {
    const account = await new Factories(server.database.db).account('owner');
    const context = await dashboard.context({ width: 1280 });
    const page = await context.newPage();
    // What the login page's provider button leaves behind before leaving for the provider.
    await page.goto('/login');
    const started = await page.evaluate(() => {
      const w = globalThis as unknown as BrowserGlobals;
      const nonce = 'nonce-of-this-browser-0123';
      w.localStorage.setItem('beckon.sign-in', JSON.stringify({ nonce, at: Date.now() }));
      return nonce;
    });
    const response = await page.goto(
      `/auth/callback#token=${account.token}&org_id=${account.org.id}&user_id=${account.user.id}&client_state=${started}`,
    );
    // Served by the gateway as the dashboard, although /auth/* belongs to the authorization process.
    expect(response?.status()).toBe(200);
    await page.getByRole('tab', { name: 'Inbox', selected: true }).waitFor();
    expect(await storedToken(page)).toBe(account.token);
    expect(page.url()).not.toContain(account.token);

    const failed = await context.newPage();
    await failed.goto('/auth/callback#error=the%20provider%20refused');
    await failed.getByText('the provider refused').waitFor();
    await failed.getByRole('link', { name: 'Back to sign-in' }).waitFor();
  }, 60_000);

  it('asks before taking a session this browser did not start (login CSRF), naming the account', async () => {
    const f = new Factories(server.database.db);
    const someone = await f.account('owner');
    const context = await dashboard.context({ width: 1280 });
    const page = await context.newPage();
    // A link someone else made from their own sign-in.
    await page.goto(
      `/auth/callback#token=${someone.token}&org_id=${someone.org.id}&client_state=forged-nonce-0123456789`,
    );
    const email = someone.user.email;
    await page.getByText('This sign-in was not started in this browser').waitFor();
    await page.getByText(email).first().waitFor();
    expect(await storedToken(page)).toBeNull();
    expect(page.url()).not.toContain(someone.token);
    // Cancel: not signed in, and the session the link carried is ended.
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    expect(await storedToken(page)).toBeNull();
    await expect.poll(async () => (await server.auth.as(someone.token).get('/auth/me')).status).toBe(401);

    // Continuing is the person's choice (say, a magic link opened on another device).
    const mine = await f.account('owner');
    await page.goto(`/auth/callback#token=${mine.token}`);
    await page.getByRole('button', { name: `Continue as ${mine.user.email}` }).click();
    await page.getByRole('tab', { name: 'Inbox', selected: true }).waitFor();
    expect(await storedToken(page)).toBe(mine.token);
  }, 60_000);

  it('signs in with a magic link asked for in this browser, and asks first for one asked elsewhere', async () => {
    const mailbox = `magic-${Date.now()}@example.com`;
    const context = await dashboard.context({ width: 1280 });
    const page = await context.newPage();
    await page.goto('/login');
    await page.getByLabel('Email address', { exact: true }).fill(mailbox);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    // Development mode (no mail server): the page links to the token itself.
    await page.getByRole('link', { name: 'Open the sign-in link' }).click();
    await page.getByRole('tab', { name: 'Inbox', selected: true }).waitFor();
    const signedIn = (await storedToken(page))!;
    expect(
      (await server.auth.as(signedIn).get<{ user: { email: string } }>('/auth/me')).body.user.email,
    ).toBe(mailbox);

    // A link for another address, asked for by someone else and sent to this browser.
    const other = `other-${Date.now()}@example.com`;
    const asked = await server.auth.post<{ token: string }>('/auth/magic-link', { email: other });
    const fresh = await (await dashboard.context({ width: 1280 })).newPage();
    await fresh.goto(`/verify?token=${asked.body.token}`);
    await fresh.getByRole('button', { name: `Continue as ${other}` }).waitFor();
    expect(await storedToken(fresh)).toBeNull();
    expect(dashboard.cspViolations).toEqual([]);
  }, 60_000);

  it('refuses a script injected into the page (Content-Security-Policy)', async () => {
    const context = await dashboard.context({ width: 1280 });
    const page = await context.newPage();
    await page.goto('/login');
    type Dom = {
      document: {
        createElement: (tag: string) => { textContent: string };
        body: { append: (node: unknown) => void };
      };
      injected?: boolean;
    };
    const ran = await page.evaluate(() => {
      const w = globalThis as unknown as Dom;
      const script = w.document.createElement('script');
      script.textContent = 'globalThis.injected = true';
      w.document.body.append(script);
      return w.injected === true;
    });
    expect(ran).toBe(false);
    await expect.poll(() => dashboard.cspViolations.length).toBe(1);
    expect(dashboard.cspViolations[0]).toMatch(/script-src 'self'/);
    dashboard.cspViolations.length = 0;
  }, 60_000);
});
