import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Factories, FakeSlack, HttpClient, TestServer } from '../harness';
import { connect, cookieOf, linkSlack, oauthReturn, onPlan, startSlackServer } from './setup';

/**
 * Linking a Slack user to a member is Sign in with Slack in the member's own browser: the Slack
 * user is the one who signed in at Slack, never one named by a link someone was sent.
 */

let server: TestServer;
let fake: FakeSlack;
let f: Factories;
let team: Awaited<ReturnType<Factories['team']>>;

const TEAM = {
  id: 'TLINKS',
  name: 'Links',
  channels: { COPS: 'ops' },
  users: { UMALLORY: 'mallory', UVERA: 'vera', UVICTIM: 'victim' },
};

beforeAll(async () => {
  ({ server, fake, f } = await startSlackServer());
  team = await f.team(server.resource);
  await onPlan(server, team.org.id, 'team');
  await connect(server, fake, team.owner, TEAM);
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});

const linksOf = (userId: string) => server.database.sql<{ slack_user_id: string }[]>`
  select slack_user_id from slack_user_links where org_id = ${team.org.id} and user_id = ${userId}`;
const startLink = async (api: HttpClient) => {
  const res = await api.post<{ url: string }>('/api/slack/links');
  expect(res.status).toBe(200);
  const url = res.body.url;
  return { url, state: new URL(url).searchParams.get('state') ?? '', cookie: cookieOf(res) };
};

describe('linking a Slack account', () => {
  it("starts Sign in with Slack for the organization's workspace, bound to this browser", async () => {
    const vera = await team.join('member');
    const start = await startLink(vera.api);
    const url = new URL(start.url);
    expect(`${url.origin}${url.pathname}`).toBe('https://slack.com/openid/connect/authorize');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code',
      scope: 'openid',
      client_id: '111.222',
      team: TEAM.id,
      redirect_uri: 'http://localhost:3000/webhooks/slack/oauth',
    });
    expect(start.cookie).toMatch(/^beckon_slack_link=[\w-]{20,}$/);
    // Vera signs in at Slack as herself, in the same browser: she is linked to her Slack user.
    const back = await oauthReturn(
      server,
      { code: fake.signInCode(TEAM.id, 'UVERA', start.url), state: start.state },
      start.cookie,
    );
    expect(back).toMatchObject({ status: 302, location: 'http://localhost:5173/slack/link?linked=1' });
    expect(back.setCookie).toMatch(/^beckon_slack_link=; Path=\/webhooks\/slack; Max-Age=0/);
    expect(await linksOf(vera.id)).toEqual([{ slack_user_id: 'UVERA' }]);
    const [audit] = await server.database.sql<{ actor_id: string; data: object }[]>`
      select actor_id, data from audit_entries where org_id = ${team.org.id} and action = 'slack.link'`;
    expect(audit).toEqual({ actor_id: vera.id, data: { slack_user_id: 'UVERA' } });
  });

  it("cannot make someone else's account answer for an attacker's Slack user", async () => {
    const mallory = await team.join('member');
    const victim = await team.join('member');
    // Mallory starts a link and sends the Slack page to the victim, who signs in there: Slack sends
    // the victim's browser back without Mallory's cookie. Nobody is linked, and the code is unused.
    const mallorys = await startLink(mallory.api);
    const exchanges = fake.of('openid.connect.token').length;
    const inVictimsBrowser = await oauthReturn(server, {
      code: fake.signInCode(TEAM.id, 'UVERA', mallorys.url),
      state: mallorys.state,
    });
    expect(inVictimsBrowser.location).toBe('http://localhost:5173/slack/link?error=other_browser');
    expect(fake.of('openid.connect.token')).toHaveLength(exchanges);
    expect(await linksOf(mallory.id)).toEqual([]);

    // A code Slack issued for another sign-in request (Mallory's page: its nonce) does not finish
    // the victim's own, even sent back to the victim's browser with the victim's state.
    const victims = await startLink(victim.api);
    const foreign = await oauthReturn(
      server,
      { code: fake.signInCode(TEAM.id, 'UMALLORY', mallorys.url), state: victims.state },
      victims.cookie,
    );
    expect(foreign.location).toBe('http://localhost:5173/slack/link?error=invalid_code');
    expect(await linksOf(victim.id)).toEqual([]);
    // The victim linking from the page Mallory's Slack message pointed to links the Slack user the
    // victim signs in as: their own.
    const own = await oauthReturn(
      server,
      { code: fake.signInCode(TEAM.id, 'UVICTIM', victims.url), state: victims.state },
      victims.cookie,
    );
    expect(own.location).toBe('http://localhost:5173/slack/link?linked=1');
    expect(await linksOf(victim.id)).toEqual([{ slack_user_id: 'UVICTIM' }]);
    expect(await linksOf(mallory.id)).toEqual([]);
  });

  it('refuses a Slack user of another workspace, a forged state, and a person no longer a member', async () => {
    fake.workspace('TELSE', 'Elsewhere', {}, { UELSE: 'else' });
    const ada = await team.join('member');
    expect((await linkSlack(server, fake, ada.api, 'TELSE', 'UELSE')).location).toBe(
      'http://localhost:5173/slack/link?error=other_workspace',
    );
    const start = await startLink(ada.api);
    const forged = await oauthReturn(
      server,
      { code: fake.signInCode(TEAM.id, 'UVERA', start.url), state: `${start.state}x` },
      start.cookie,
    );
    expect(forged.location).toBe('http://localhost:5173/settings/slack?error=invalid_state');
    await server.database.sql`delete from memberships where org_id = ${team.org.id} and user_id = ${ada.id}`;
    const gone = await oauthReturn(
      server,
      { code: fake.signInCode(TEAM.id, 'UVERA', start.url), state: start.state },
      start.cookie,
    );
    expect(gone.location).toBe('http://localhost:5173/slack/link?error=forbidden');
    expect(await linksOf(ada.id)).toEqual([]);
  });

  it('needs a connected workspace and a person (not an API key)', async () => {
    const lonely = await f.team(server.resource);
    expect((await lonely.owner.post('/api/slack/links')).status).toBe(409);
    const key = await f.apiKey(team.org.id, team.user.id);
    expect((await server.resource.as(key.token).post('/api/slack/links')).status).toBe(403);
  });
});
