import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type FakeSlack, planLimitBody, startTestServer, type TestServer } from '../harness';
import { APP, connect, interact, oauthReturn, onPlan, startInstall, startSlackServer } from './setup';

let server: TestServer;
let unconfigured: TestServer;
let fake: FakeSlack;
let f: Factories;

beforeAll(async () => {
  ({ server, fake, f } = await startSlackServer());
  unconfigured = await startTestServer();
});
afterAll(async () => {
  await server?.close();
  await unconfigured?.close();
  await fake?.close();
});

const TEAM_A = { id: 'TALPHA', name: 'Alpha', channels: { CALPHA1: 'ops', CALPHA2: 'general' } };
const TEAM_B = { id: 'TBETA', name: 'Beta', channels: { CBETA1: 'ops' } };

async function teamOrg() {
  const team = await f.team(server.resource);
  await onPlan(server, team.org.id, 'team');
  return team;
}

describe('Slack configuration', () => {
  it('answers 503 everywhere when Slack is not configured', async () => {
    const account = await new Factories(unconfigured.database.db).account('owner');
    const api = unconfigured.resource.as(account.token);
    for (const res of [await api.get('/api/slack/connection'), await api.post('/api/slack/install')]) {
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: 'slack is not configured', code: 'slack_not_configured' });
    }
    const interaction = await interact(unconfigured, { type: 'block_actions' });
    expect(interaction.status).toBe(503);
  });
});

describe('connecting a workspace', () => {
  it('is a Team plan feature: Free is refused with the plan-gate 402', async () => {
    const team = await f.team(server.resource);
    const res = await team.owner.post('/api/slack/install');
    expect(res.status).toBe(402);
    expect(res.body).toEqual(planLimitBody('slack_workspaces', 0, 0));
  });

  it('is checked again when Slack sends the browser back', async () => {
    const team = await teamOrg();
    const { state, cookie } = await startInstall(team.owner);
    await onPlan(server, team.org.id, 'free');
    const workspace = fake.workspace('TLATE', 'Late', {});
    const back = await oauthReturn(server, { code: workspace.installCode(), state }, cookie);
    expect(back).toMatchObject({
      status: 302,
      location: 'http://localhost:5173/settings/slack?error=plan_limit',
    });
    expect((await team.owner.get('/api/slack/connection')).body).toEqual({ connection: null });
  });

  it('needs org.manage', async () => {
    const team = await teamOrg();
    const member = await team.join('member');
    expect((await member.api.post('/api/slack/install')).status).toBe(403);
    expect((await member.api.get('/api/slack/connection')).status).toBe(403);
  });

  it('installs through Slack OAuth and keeps the bot token encrypted', async () => {
    const team = await teamOrg();
    const install = await startInstall(team.owner);
    const url = new URL(install.url);
    expect(`${url.origin}${url.pathname}`).toBe('https://slack.com/oauth/v2/authorize');
    expect(url.searchParams.get('client_id')).toBe(APP.clientId);
    expect(url.searchParams.get('scope')).toBe('chat:write,channels:read,groups:read,im:write,users:read');
    expect(url.searchParams.get('redirect_uri')).toBe('http://localhost:3000/webhooks/slack/oauth');

    const workspace = fake.workspace(TEAM_A.id, TEAM_A.name, TEAM_A.channels);
    const code = workspace.installCode();
    const back = await oauthReturn(server, { code, state: install.state }, install.cookie);
    expect(back).toMatchObject({ status: 302, location: 'http://localhost:5173/settings/slack?connected=1' });
    const exchange = fake.of('oauth.v2.access').at(-1);
    expect(exchange?.params).toMatchObject({
      client_id: APP.clientId,
      client_secret: APP.clientSecret,
      code,
    });

    const status = await team.owner.get<{ connection: Record<string, unknown> }>('/api/slack/connection');
    expect(status.body.connection).toMatchObject({
      team_id: 'TALPHA',
      team_name: 'Alpha',
      bot_user_id: 'UBOTTALPHA',
    });
    // A code is good once: Slack's refusal of a second exchange goes back to the page.
    const reused = await oauthReturn(server, { code, state: install.state }, install.cookie);
    expect(reused).toMatchObject({
      status: 302,
      location: 'http://localhost:5173/settings/slack?error=invalid_code',
    });
    const [row] = await server.database.sql<{ token_ciphertext: string }[]>`
      select token_ciphertext from slack_connections where org_id = ${team.org.id}`;
    expect(row?.token_ciphertext).not.toContain('xoxb');
    expect(Buffer.from(row?.token_ciphertext ?? '', 'base64').toString('latin1')).not.toContain('xoxb');
  });

  it('refuses a forged or foreign state', async () => {
    const team = await teamOrg();
    const { state, cookie } = await startInstall(team.owner);
    const workspace = fake.workspace('TFORGED', 'Forged', {});
    const [body, mac] = state.split('.');
    const other = await f.team(server.resource);
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body ?? '', 'base64url').toString()), org: other.org.id }),
    ).toString('base64url');
    for (const bad of [`${forged}.${mac}`, 'nonsense']) {
      const back = await oauthReturn(server, { code: workspace.installCode(), state: bad }, cookie);
      expect(back).toMatchObject({
        status: 302,
        location: 'http://localhost:5173/settings/slack?error=invalid_state',
      });
    }
    for (const org of [team.org.id, other.org.id]) {
      const [row] = await server.database.sql`select 1 from slack_connections where org_id = ${org}`;
      expect(row).toBeUndefined();
    }
  });
});

describe('the install is bound to the browser that started it', () => {
  it("refuses Slack's redirect in another browser (an authorize link sent to someone): the code is never used", async () => {
    const team = await teamOrg();
    const install = await startInstall(team.owner);
    expect(install.cookie).toMatch(/^beckon_slack_install=[\w-]{20,}$/);
    const exchanges = fake.of('oauth.v2.access').length;
    const workspace = fake.workspace('TVICTIM', 'Victim', {});
    const otherBrowser = 'beckon_slack_install=somebody-elses-value-of-the-same-length';
    for (const cookie of ['', otherBrowser]) {
      const back = await oauthReturn(server, { code: workspace.installCode(), state: install.state }, cookie);
      expect(back).toMatchObject({
        status: 302,
        location: 'http://localhost:5173/settings/slack?error=other_browser',
      });
    }
    expect(fake.of('oauth.v2.access')).toHaveLength(exchanges);
    expect((await team.owner.get('/api/slack/connection')).body).toEqual({ connection: null });
    // In the browser that started it, the same state connects; the cookie is then cleared.
    const back = await oauthReturn(
      server,
      { code: workspace.installCode(), state: install.state },
      install.cookie,
    );
    expect(back.location).toBe('http://localhost:5173/settings/slack?connected=1');
    expect(back.setCookie).toMatch(
      /^beckon_slack_install=; Path=\/webhooks\/slack; Max-Age=0; HttpOnly; SameSite=Lax/,
    );
  });

  it('sets the cookie over tRPC too, scoped to the callback', async () => {
    const team = await teamOrg();
    const res = await fetch(`${server.resource.baseUrl}/trpc/slack.install`, {
      method: 'POST',
      headers: { authorization: `Bearer ${team.token}`, 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toMatch(
      /^beckon_slack_install=[\w-]+; Path=\/webhooks\/slack; Max-Age=900; HttpOnly; SameSite=Lax$/,
    );
  });
});

describe('routing channels', () => {
  it("routes the organization's channels to its own workspace's channels only", async () => {
    const alpha = await teamOrg();
    const beta = await teamOrg();
    expect((await connect(server, fake, alpha.owner, { ...TEAM_A, id: 'TROUTEA' })).status).toBe(302);
    expect((await connect(server, fake, beta.owner, { ...TEAM_B, id: 'TROUTEB' })).status).toBe(302);
    const ops = await alpha.owner.post<{ id: string }>('/api/channels', { name: 'ops', mode: 'open' });
    const betaOps = await beta.owner.post<{ id: string }>('/api/channels', { name: 'ops', mode: 'open' });

    const channels = await alpha.owner.get<{ id: string; name: string }[]>('/api/slack/channels');
    expect(channels.body.map((c) => c.id).sort()).toEqual(['CALPHA1', 'CALPHA2']);

    const routed = await alpha.owner.put(`/api/slack/routes/${ops.body.id}`, { slack_channel_id: 'CALPHA1' });
    expect(routed.status).toBe(200);
    expect(routed.body).toMatchObject({
      channel: 'ops',
      slack_channel_id: 'CALPHA1',
      slack_channel_name: 'ops',
    });
    // Another workspace's channel: Slack does not know it for this organization's bot.
    const foreignSlack = await alpha.owner.put(`/api/slack/routes/${ops.body.id}`, {
      slack_channel_id: 'CBETA1',
    });
    expect(foreignSlack.status).toBe(400);
    // Another organization's Beckon channel.
    const foreignChannel = await alpha.owner.put(`/api/slack/routes/${betaOps.body.id}`, {
      slack_channel_id: 'CALPHA2',
    });
    expect(foreignChannel.status).toBe(404);
    expect((await beta.owner.get<unknown[]>('/api/slack/routes')).body).toEqual([]);

    const routes = await alpha.owner.get<{ slack_channel_id: string }[]>('/api/slack/routes');
    expect(routes.body.map((r) => r.slack_channel_id)).toEqual(['CALPHA1']);
    expect((await alpha.owner.delete(`/api/slack/routes/${ops.body.id}`)).status).toBe(200);
    expect((await alpha.owner.get<unknown[]>('/api/slack/routes')).body).toEqual([]);
  });

  it('disconnecting forgets the token and the routes', async () => {
    const team = await teamOrg();
    await connect(server, fake, team.owner, { ...TEAM_A, id: 'TGONE' });
    const ops = await team.owner.post<{ id: string }>('/api/channels', { name: 'ops', mode: 'open' });
    await team.owner.put(`/api/slack/routes/${ops.body.id}`, { slack_channel_id: 'CALPHA1' });
    const res = await team.owner.delete('/api/slack/connection');
    expect(res.body).toEqual({ connection: null });
    const revoked = fake.of('auth.revoke').at(-1);
    expect(revoked?.token).toMatch(/^xoxb-TGONE-/);
    const [routes] = await server.database.sql<{ n: number }[]>`
      select count(*)::int as n from slack_routes where org_id = ${team.org.id}`;
    expect(routes?.n).toBe(0);
    expect((await team.owner.get('/api/slack/routes')).body).toEqual([]);
  });
});
