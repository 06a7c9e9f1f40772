import { decodeJwt } from 'jose';
import type { CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, freePort, startTestServer, type TestServer } from '../harness';
import { until } from '../sdk/helpers';
import { type BrowserGlobals, type Dashboard, ensureDashboardBuilt, startDashboard } from './browser';

/**
 * Passkeys in the dashboard, with Chromium's virtual authenticator (DevTools WebAuthn domain): a
 * platform authenticator that keeps discoverable credentials and verifies its user. WebAuthn
 * refuses IP addresses as relying party ids, so the dashboard is opened as `localhost`, its
 * APP_URL.
 */

let server: TestServer;
let dashboard: Dashboard;
let app: string;

beforeAll(async () => {
  ensureDashboardBuilt();
  const port = await freePort();
  app = `http://localhost:${port}`;
  server = await startTestServer({ env: { APP_URL: app } });
  dashboard = await startDashboard(server, port);
}, 240_000);
afterAll(async () => {
  await dashboard?.close();
  await server?.close();
}, 150_000);

const YES_NO = {
  id: 'f',
  fields: [{ id: 'ok', type: 'yesno', label: 'Release the payment?', required: true }],
};

/** A virtual authenticator attached to the page, as a phone or laptop with a screen lock. */
async function virtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; id: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, id: authenticatorId };
}

const storedToken = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as BrowserGlobals).localStorage.getItem('beckon.token'));

const signCount = async (authenticator: { cdp: CDPSession; id: string }) => {
  const { credentials } = await authenticator.cdp.send('WebAuthn.getCredentials', {
    authenticatorId: authenticator.id,
  });
  return credentials.map((c) => c.signCount);
};

describe('passkeys', () => {
  it('are added in the settings, sign in, and confirm a risky answer', async () => {
    const f = new Factories(server.database.db);
    const team = await f.team(server.resource);
    const context = await dashboard.context({ width: 1280 });
    const page = await context.newPage();
    const authenticator = await virtualAuthenticator(page);

    // Signed in by another method (the factory's session), the person adds a passkey.
    await page.goto(`${app}/login`);
    await page.evaluate((token) => {
      (globalThis as unknown as BrowserGlobals).localStorage.setItem('beckon.token', token);
    }, team.token);
    await page.goto(`${app}/settings/passkeys`);
    await page.getByText('You have no passkey yet.').waitFor();
    await page.getByLabel('Name of the new passkey').fill('Work laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    const list = page.getByRole('list', { name: 'Your passkeys' });
    await list.getByText('Work laptop').waitFor();
    expect(await signCount(authenticator)).toHaveLength(1);
    const [stored] = await server.database.sql<{ user_id: string; name: string; transports: string[] }[]>`
      select user_id, name, transports from passkeys`;
    expect(stored).toEqual({ user_id: team.user.id, name: 'Work laptop', transports: ['internal'] });

    // Renamed in place.
    await list.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('Passkey name').fill('Laptop (Touch ID)');
    await page.getByRole('button', { name: 'Save' }).click();
    await list.getByText('Laptop (Touch ID)').waitFor();

    // Signed out, then in again with the passkey alone (no email typed).
    await page.getByRole('button', { name: 'Account' }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    expect((await server.auth.as(team.token).get('/auth/me')).status).toBe(401);
    const signingIn = page.waitForRequest((r) => /accounts\.passkeySignIn($|\?)/.test(r.url()));
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    const assertion = (await signingIn).postDataJSON() as Record<string, unknown>;
    await until(async () => (await storedToken(page)) !== null);
    // The same assertion again: its challenge was used once, so it signs nobody in.
    const replayed = await server.auth.post('/auth/passkeys/sign-in', assertion);
    expect(replayed.status).toBe(400);
    expect(replayed.body).toMatchObject({ code: 'passkey_refused' });
    const token = (await storedToken(page)) as string;
    const me = await server.auth.as(token).get<{ user: { id: string }; org: { id: string } }>('/auth/me');
    expect(me.body.user.id).toBe(team.user.id);
    // An agent of the organization signed in to (the personal workspace) asks.
    const agent = server.resource.as((await f.apiKey(me.body.org.id, team.user.id)).token);
    const [session] = await server.database.sql<{ id: string; origin: string }[]>`
      select id, origin from sessions where user_id = ${team.user.id} and revoked_at is null`;
    expect(session?.origin).toBe('passkey');

    // A risky item: its answer needs a passkey used within 5 minutes. The sign-in was 10
    // minutes ago (as far as the server knows): the answer alone is refused.
    const item = (
      await agent.post<{ id: string }>('/api/items', {
        title: 'Release 40,000 EUR to ACME?',
        form: YES_NO,
        require_reauth: { method: 'passkey', within_minutes: 5 },
      })
    ).body;
    await server.database.sql`
      update sessions set created_at = now() - interval '10 minutes' where id = ${session!.id}`;
    const refused = await server.resource
      .as(token)
      .post(`/api/items/${item.id}/answer`, { values: { ok: true } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'reauth_required' });
    const before = await signCount(authenticator);

    // In the dashboard: the page says so, and submitting asks for the passkey first.
    await page.goto(`${app}/items/${item.id}`);
    await page
      .getByRole('note', { name: 'Verification required' })
      .getByText(/needs your passkey/)
      .waitFor();
    await page.getByRole('radio', { name: 'Yes' }).click();
    await page.getByRole('button', { name: 'Submit answer' }).click();
    let answered: { status: string; receipt: string | null } | undefined;
    await until(async () => {
      answered = (await server.resource.as(token).get<typeof answered>(`/api/items/${item.id}`)).body;
      return answered?.status === 'answered';
    });
    expect((await signCount(authenticator))[0]).toBeGreaterThan(before[0] ?? 0);

    // The receipt says a passkey verified the person, and when.
    const [verified] = await server.database.sql<{ verified_at: Date; verified_method: string }[]>`
      select verified_at, verified_method from sessions where id = ${session!.id}`;
    expect(verified?.verified_method).toBe('passkey');
    expect(decodeJwt(answered?.receipt ?? '')).toMatchObject({
      outcome: 'answered',
      decided_by: { type: 'user', id: team.user.id },
      amr: ['passkey'],
      auth_time: Math.floor((verified?.verified_at.getTime() ?? 0) / 1000),
    });

    // Deleted in the settings: it no longer signs in or confirms.
    await page.goto(`${app}/settings/passkeys`);
    await list.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('You have no passkey yet.').waitFor();
    expect(await server.database.sql`select 1 from passkeys where user_id = ${team.user.id}`).toHaveLength(0);
    const none = await server.auth.as(token).post('/auth/passkeys/verify-options');
    expect(none.body).toEqual({
      error: 'you have no passkey yet: add one in the settings',
      code: 'passkey_refused',
    });
    await context.close();
  }, 120_000);
});
