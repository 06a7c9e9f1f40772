import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Factories, FakeSlack, TestServer } from '../harness';
import { buttons, click, interact, onPlan, startSlackServer } from '../slack/setup';
import { type Dashboard, ensureDashboardBuilt, startDashboard } from './browser';

let server: TestServer;
let fake: FakeSlack;
let f: Factories;
let dashboard: Dashboard;

beforeAll(async () => {
  ensureDashboardBuilt();
  ({ server, fake, f } = await startSlackServer());
  dashboard = await startDashboard(server);
}, 240_000);

afterAll(async () => {
  const refused = dashboard?.cspViolations ?? [];
  await dashboard?.close();
  await server?.close();
  await fake?.close();
  expect(refused).toEqual([]);
});

describe('Slack in the dashboard', () => {
  it('connects a workspace through Slack, routes a channel, and links a Slack user', async () => {
    const team = await f.team(server.resource);
    await onPlan(server, team.org.id, 'team');
    const ops = (await team.owner.post<{ id: string }>('/api/channels', { name: 'ops', mode: 'open' })).body;
    const workspace = fake.workspace('TBROWSER', 'Browser team', { CALERTS: 'alerts', CRANDOM: 'random' });
    const context = await dashboard.context({ width: 1280, token: team.token });
    // Slack's authorize page approves at once and sends the browser back with a code; the public
    // APP_URL (the server's default) is this test's dashboard.
    await context.route('https://slack.com/oauth/v2/authorize**', (route) => {
      const state = new URL(route.request().url()).searchParams.get('state') ?? '';
      const back = new URLSearchParams({ code: workspace.installCode(), state });
      return route.fulfill({
        status: 302,
        headers: { location: `${dashboard.origin}/webhooks/slack/oauth?${back}` },
      });
    });
    await context.route('http://localhost:5173/**', (route) => {
      const url = new URL(route.request().url());
      return route.fulfill({
        status: 302,
        headers: { location: `${dashboard.origin}${url.pathname}${url.search}` },
      });
    });
    const page = await context.newPage();
    await page.goto('/settings/slack');
    await page.getByRole('button', { name: 'Connect Slack' }).click();
    await page.getByText('Slack is connected.').waitFor();
    await page.getByText('Browser team').waitFor();

    await page.getByLabel('Slack channel of ops').selectOption({ label: '#alerts' });
    await expect
      .poll(async () => (await team.owner.get<{ slack_channel_id: string }[]>('/api/slack/routes')).body)
      .toEqual([expect.objectContaining({ channel_id: ops.id, slack_channel_id: 'CALERTS' })]);

    // A Slack user clicks a button before linking: the link Slack shows them opens the dashboard.
    const form = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?', required: true }] };
    const item = (
      await team.owner.post<{ id: string }>('/api/items', { title: 'Go?', channel_id: ops.id, form })
    ).body;
    const message = await fake.waitForMention('chat.postMessage', item.id);
    await interact(server, click('TBROWSER', 'UCAROL', 'CALERTS', buttons(message.params.blocks).Yes!));
    const ask = await fake.waitForMention('chat.postEphemeral', 'UCAROL');
    const link = /<([^|>]+)\|/.exec(String(ask.params.text))?.[1] ?? '';
    // Slack's Sign in with Slack page: Carol signs in there, and Slack sends this browser back.
    await context.route('https://slack.com/openid/connect/authorize**', (route) => {
      const url = route.request().url();
      const state = new URL(url).searchParams.get('state') ?? '';
      const back = new URLSearchParams({ code: fake.signInCode('TBROWSER', 'UCAROL', url), state });
      return route.fulfill({
        status: 302,
        headers: { location: `${dashboard.origin}/webhooks/slack/oauth?${back}` },
      });
    });
    await page.goto(new URL(link).pathname);
    await page.getByRole('button', { name: 'Sign in with Slack' }).click();
    await page.getByText('Linked.').waitFor();
    const [linked] = await server.database.sql<{ user_id: string }[]>`
      select user_id from slack_user_links where org_id = ${team.org.id} and slack_user_id = 'UCAROL'`;
    expect(linked?.user_id).toBe(team.user.id);
  });
});
