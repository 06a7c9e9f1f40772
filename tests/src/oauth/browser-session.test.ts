import type { AddressInfo } from 'node:net';
import { buildAuthApp } from '@beckon/server/http/auth';
import { BrowserSessions } from '@beckon/server/oauth/browser-session';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type TestServer } from '../harness';
import { mailText, startSmtpServer } from '../harness/smtp';
import { Browser, type Page } from './browser';
import { isConsentPage, isSignInPage, startOAuthServer, ThirdPartyClient } from './flow';

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let issuer: string;
let client: ThirdPartyClient;
let f: Factories;

beforeAll(async () => {
  smtp = await startSmtpServer();
  server = await startOAuthServer({
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(smtp.port),
    IDP_A_CLIENT_ID: 'beckon-test',
    IDP_A_CLIENT_SECRET: 'secret',
  });
  issuer = server.authDeps.env.ISSUER_URL;
  client = await ThirdPartyClient.register(issuer, { name: 'Agent <Smith>' });
  f = new Factories(server.database.db);
});
afterAll(async () => {
  await server?.close();
  await smtp?.close();
});

/** Starts an authorization request in `browser` and follows it to the first page shown. */
async function start(browser: Browser, params: Record<string, string> = {}, base = issuer) {
  const request = await client.authorizationRequest(params);
  const url = request.url.replace(issuer, base);
  return { ...request, page: await browser.follow(url, client.isRedirect) };
}

/** Signs in from the sign-in page with the link mailed to `email` (real SMTP). */
async function signInByMail(browser: Browser, page: Page, email: string) {
  const sent = await browser.submit(page, '/magic-link', { email }, client.isRedirect);
  expect(sent.status).toBe(200);
  expect(sent.body).toContain('a sign-in link is on its way');
  expect(sent.body).not.toContain('>Continue<');
  const mail = await smtp.waitForMail(email);
  smtp.messages.splice(smtp.messages.indexOf(mail), 1);
  const link = /(http:\/\/\S+\/verify\?token=\S+)/.exec(mailText(mail.raw))?.[1] ?? '';
  expect(link.startsWith(`${issuer}/oauth/interaction/`)).toBe(true);
  const confirm = await browser.request(link);
  expect(confirm.body).toContain('Continue signing in');
  return browser.submit(confirm, '/verify', {}, client.isRedirect);
}

describe('signing in', () => {
  it('shows a sign-in page to a browser without a session: magic link and the enabled providers', async () => {
    const { page } = await start(new Browser());
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(isSignInPage(page)).toBe(true);
    expect(page.body).toContain('<html lang="en">');
    expect(page.body).toContain('<label for="email">');
    expect(page.body).toContain('Agent &lt;Smith&gt;');
    expect(page.body).not.toContain('dev-login');
    expect(page.body).not.toMatch(/(src|href)="https?:/);
    const uid = /\/oauth\/interaction\/([^/"]+)\/magic-link/.exec(page.body)?.[1] ?? '';
    expect(page.body).toContain(
      `href="/auth/oauth/idp_a?return_to=${encodeURIComponent(`/oauth/interaction/${uid}`)}"`,
    );
  });

  it('signs in with the mailed link, asks consent naming the client, and returns a code', async () => {
    const browser = new Browser();
    const { page, state } = await start(browser);
    const consent = await signInByMail(browser, page, 'mail@example.test');
    expect(isConsentPage(consent)).toBe(true);
    expect(consent.body).toContain('Allow Agent &lt;Smith&gt; to use Beckon?');
    expect(consent.body).toContain('127.0.0.1:4999');
    expect(consent.body).toContain('mail@example.test');
    expect(consent.body).toContain('mail&#39;s workspace');
    expect(consent.body).toContain('send notifications and questions');
    const back = await browser.submit(consent, '/consent', { decision: 'allow' }, client.isRedirect);
    expect(client.callback(String(back.stoppedAt), state).get('code')).toEqual(expect.any(String));
    const [audit] = await server.database.sql<{ data: Record<string, unknown> }[]>`
      select a.data from audit_entries a join users u on u.id = a.actor_id
       where a.action = 'oauth.consent' and u.email = 'mail@example.test'`;
    expect(audit?.data).toEqual({
      client_id: client.client.client_id,
      scope: 'items.read items.write items.archive',
    });

    // The cookie names a session of ours by its id, signed: never its bearer token.
    const cookie = browser.cookie('beckon_browser_session') ?? '';
    const [session] = await server.database.sql<{ id: string }[]>`
      select s.id from sessions s join users u on u.id = s.user_id where u.email = 'mail@example.test'`;
    expect(cookie.startsWith(`${session?.id}.`)).toBe(true);

    // Signed in: the next request of this browser goes straight to consent.
    const again = await start(browser);
    expect(isConsentPage(again.page)).toBe(true);
  });

  it('refuses a used link on the sign-in page', async () => {
    const uidOf = (page: Page) => /\/oauth\/interaction\/([^/"]+)\/magic-link/.exec(page.body)?.[1] ?? '';
    const verify = (browser: Browser, page: Page, token: string) =>
      browser.request(`${issuer}/oauth/interaction/${uidOf(page)}/verify`, {
        method: 'POST',
        form: { token },
      });
    const first = new Browser();
    const firstStart = await start(first);
    await first.submit(firstStart.page, '/magic-link', { email: 'twice@example.test' }, client.isRedirect);
    const mail = await smtp.waitForMail('twice@example.test');
    const token =
      new URL(/(http:\/\/\S+\/verify\?token=\S+)/.exec(mailText(mail.raw))?.[1] ?? '').searchParams.get(
        'token',
      ) ?? '';

    const second = new Browser();
    const secondStart = await start(second);
    expect((await verify(second, secondStart.page, token)).status).toBe(303);
    const reused = await verify(first, firstStart.page, token);
    expect(reused.status).toBe(400);
    expect(isSignInPage(reused)).toBe(true);
    expect(reused.body).toContain('invalid, expired or already used');
  });

  it('refuses an interaction from a browser that did not start it', async () => {
    const { page } = await start(new Browser());
    const action = /action="([^"]+)\/magic-link"/.exec(page.body)?.[1] ?? '';
    const stranger = await new Browser().request(`${issuer}${action}`);
    expect(stranger.status).toBe(400);
    expect(stranger.body).toContain('This sign-in request has ended');
  });

  it('sends the person back to the client with access_denied when they deny', async () => {
    const browser = new Browser();
    const first = await start(browser);
    const consent = await signInByMail(browser, first.page, 'deny@example.test');
    const back = await browser.submit(consent, '/consent', { decision: 'deny' }, client.isRedirect);
    const params = new URL(String(back.stoppedAt)).searchParams;
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('state')).toBe(first.state);
    expect(params.get('code')).toBeNull();
  });
});

describe('the browser session', () => {
  /** A browser signed in with an existing session of ours (cookie signed with the server's key). */
  async function browserWith(sessionToken: string) {
    const browser = new Browser();
    const { sql, env } = server.authDeps;
    const sessions = new BrowserSessions(sql, env, String(env.OAUTH_SIGNING_KEY));
    browser.setCookie(await sessions.cookieForToken(sessionToken, new Date()), issuer);
    return browser;
  }

  it("grants in the session's organization, with the person's role narrowed to an agent's", async () => {
    const { org, user, token } = await f.account('viewer');
    const browser = await browserWith(token);
    const { page, state, verifier } = await start(browser);
    expect(page.body).toContain(org.name);
    const back = await browser.submit(page, '/consent', { decision: 'allow' }, client.isRedirect);
    const tokens = await client.exchange(client.callback(String(back.stoppedAt), state), verifier);
    const me = await server.resource.as(tokens.access_token).get('/api/me');
    expect(me.body).toMatchObject({
      user_id: user.id,
      org_id: org.id,
      role: 'viewer',
      permissions: ['items.read'],
    });
  });

  it('ends with the session: a revoked session signs the browser out', async () => {
    const { session, token } = await f.account('member');
    const browser = await browserWith(token);
    expect(isConsentPage((await start(browser)).page)).toBe(true);
    await server.database.sql`update sessions set revoked_at = now() where id = ${session.id}`;
    expect(isSignInPage((await start(browser)).page)).toBe(true);
  });

  it('logs every browser out when OAUTH_SIGNING_KEY changes', async () => {
    const { token } = await f.account('member');
    const browser = await browserWith(token);
    expect(isConsentPage((await start(browser)).page)).toBe(true);

    const rotated = await buildAuthApp({
      ...server.authDeps,
      env: { ...server.authDeps.env, OAUTH_SIGNING_KEY: 'another-signing-key-of-at-least-32-bytes!' },
    });
    await rotated.listen({ host: '127.0.0.1', port: 0 });
    try {
      const base = `http://127.0.0.1:${(rotated.server.address() as AddressInfo).port}`;
      expect(isSignInPage((await start(browser, {}, base)).page)).toBe(true);
    } finally {
      await rotated.close();
    }
    // The same cookie still works where the key did not change.
    expect(isConsentPage((await start(browser)).page)).toBe(true);
  });
});
