import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BOT_TOKEN,
  DISCORD_TOKEN,
  onPlan,
  startChatServer,
  startMessage,
  TEAMS_APP_ID,
  TEAMS_CHANNEL,
  TEAMS_SECRET,
  teamsActivity,
  teamsInstalled,
  teamsMessage,
  telegramUpdate,
} from '../chat/setup';
import type { Factories, FakeDiscord, FakeTeams, FakeTelegram, TestServer } from '../harness';
import { type Dashboard, ensureDashboardBuilt, startDashboard } from './browser';

let server: TestServer;
let telegram: FakeTelegram;
let discord: FakeDiscord;
let teams: FakeTeams;
let f: Factories;
let close: () => Promise<void>;
let dashboard: Dashboard;

beforeAll(async () => {
  ensureDashboardBuilt();
  const started = await startChatServer();
  ({ server, telegram, discord, teams, f, close } = started);
  dashboard = await startDashboard(server);
}, 240_000);

afterAll(async () => {
  const refused = dashboard?.cspViolations ?? [];
  await dashboard?.close();
  await close?.();
  expect(refused).toEqual([]);
});

describe('Telegram, Discord and Teams in the dashboard', () => {
  it('connects a Telegram bot by its token, routes a channel, and links the person by the deep link', async () => {
    const team = await f.team(server.resource);
    await onPlan(server, team.org.id, 'team');
    const ops = (await team.owner.post<{ id: string }>('/api/channels', { name: 'ops', mode: 'open' })).body;
    telegram.bot(BOT_TOKEN, 4242, 'browser_bot');
    telegram.chat(-100777, { type: 'supergroup', title: 'Browser room' });
    const context = await dashboard.context({ width: 1280, token: team.token });
    const page = await context.newPage();
    await page.goto('/settings/telegram');
    await page.getByLabel('Telegram bot token').fill(BOT_TOKEN);
    await page.getByRole('button', { name: 'Connect Telegram' }).click();
    await page.getByText('@browser_bot').waitFor();

    await page.getByLabel('Telegram chat of ops').fill('-100777');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('→ Browser room').waitFor();
    const routes = (await team.owner.get<{ channel_id: string; chat_id: string }[]>('/api/telegram/routes'))
      .body;
    expect(routes).toEqual([expect.objectContaining({ channel_id: ops.id, chat_id: '-100777' })]);

    await page.getByRole('button', { name: 'Link my Telegram account' }).click();
    const deepLink = page.getByRole('link', { name: /^https:\/\/t\.me\/browser_bot\?start=/ });
    await deepLink.waitFor();
    const code = new URL((await deepLink.getAttribute('href')) ?? '').searchParams.get('start') ?? '';
    const secret = telegram.webhookOf(BOT_TOKEN)?.secret ?? '';
    expect((await telegramUpdate(server, team.org.id, secret, startMessage(9001, code))).status).toBe(200);
    await page.reload();
    await page.getByText(/^Linked since/).waitFor();
  }, 90_000);

  it("shows a member only their own Discord link, and the application's URL to its manager", async () => {
    const team = await f.team(server.resource);
    await onPlan(server, team.org.id, 'team');
    discord.app(DISCORD_TOKEN, '445566778899001122', 'Browser App');
    const manager = await dashboard.context({ width: 1280, token: team.token });
    const page = await manager.newPage();
    await page.goto('/settings/discord');
    await page.getByLabel('Discord bot token').fill(DISCORD_TOKEN);
    await page.getByRole('button', { name: 'Connect Discord' }).click();
    await page.getByText(`/webhooks/discord/${team.org.id}`).waitFor();

    const member = await team.join('member');
    const memberContext = await dashboard.context({ width: 1280, token: member.token });
    const memberPage = await memberContext.newPage();
    await memberPage.goto('/settings/discord');
    await memberPage.getByRole('button', { name: 'Link my Discord account' }).click();
    await memberPage.getByText(/^In Discord, send \/beckon-link code:/).waitFor();
    expect(await memberPage.getByLabel('Discord bot token').count()).toBe(0);
  }, 90_000);

  it('connects a Teams bot by its app id and secret, routes a conversation it is in, and links the person', async () => {
    const team = await f.team(server.resource);
    await onPlan(server, team.org.id, 'team');
    await team.owner.post('/api/channels', { name: 'ops', mode: 'open' });
    teams.app(TEAMS_APP_ID, TEAMS_SECRET);
    const context = await dashboard.context({ width: 1280, token: team.token });
    const page = await context.newPage();
    await page.goto('/settings/teams');
    await page.getByLabel('Microsoft App ID').fill(TEAMS_APP_ID);
    await page.getByLabel('Client secret').fill(TEAMS_SECRET);
    await page.getByRole('button', { name: 'Connect Microsoft Teams' }).click();
    await page.getByText(`/webhooks/teams/${team.org.id}`).waitFor();

    expect((await teamsActivity(server, teams, team.org.id, teamsInstalled('29:browser'))).status).toBe(200);
    await page.reload();
    await page.getByText('Ops team / ops:').waitFor();
    await page.getByLabel('Teams chat of ops').fill(TEAMS_CHANNEL.id);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('→ Ops team / ops').waitFor();

    await page.getByRole('button', { name: 'Link my Teams account' }).click();
    const instructions = page.getByText(/^In Microsoft Teams, send the bot this message in its chat: link /);
    await instructions.waitFor();
    const code = (await instructions.textContent())?.split('link ').at(-1)?.trim() ?? '';
    const sent = await teamsActivity(server, teams, team.org.id, teamsMessage('29:browser', `link ${code}`));
    expect(sent.status).toBe(200);
    await page.reload();
    await page.getByText(/^Linked since/).waitFor();
  }, 90_000);
});
