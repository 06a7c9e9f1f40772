import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeDiscord, FakeSlack, FakeTeams, FakeTelegram, HttpClient, TestServer } from '../harness';
import { connect } from '../slack/setup';
import {
  BOT_TOKEN,
  callbackQuery,
  componentClick,
  DISCORD_TOKEN,
  discordInteraction,
  type Item,
  linkCommand,
  linkTelegram,
  onPlan,
  startChatServer,
  TEAMS_APP_ID,
  TEAMS_CHANNEL,
  TEAMS_SECRET,
  teamsActivity,
  teamsCardAction,
  teamsInstalled,
  teamsMessage,
  telegramUpdate,
  YES_NO,
} from './setup';

let server: TestServer;
let slack: FakeSlack;
let telegram: FakeTelegram;
let discord: FakeDiscord;
let teams: FakeTeams;
let close: () => Promise<void>;
let owner: HttpClient;
let orgId: string;
let opsId: string;
let secret: string;

const GROUP = -1005555;
const ALICE = 6001;
const CHANNEL = '445566778899001122';
const BOB = '556677889900112233';
const CAROL = '29:1carol-teams';

/** One organization with Slack, Telegram, Discord and Teams all routed from the same channel, and linked people. */
beforeAll(async () => {
  const started = await startChatServer();
  ({ server, slack, telegram, discord, teams, close } = started);
  const team = await started.f.team(server.resource);
  owner = team.owner;
  orgId = team.org.id;
  await onPlan(server, orgId, 'team');
  telegram.bot(BOT_TOKEN, 888, 'beckon_cross_bot');
  telegram.chat(GROUP, { type: 'group', title: 'Ops' });
  discord.app(DISCORD_TOKEN, '887766554433221100', 'Beckon');
  discord.channel(CHANNEL, 'ops');
  opsId = (await owner.post<{ id: string }>('/api/channels', { name: 'ops', mode: 'open' })).body.id;
  await connect(server, slack, owner, { id: 'TX', name: 'Cross', channels: { COPS: 'ops' } });
  await owner.put(`/api/slack/routes/${opsId}`, { slack_channel_id: 'COPS' });
  await owner.put('/api/telegram/connection', { bot_token: BOT_TOKEN });
  secret = telegram.webhookOf(BOT_TOKEN)?.secret ?? '';
  await owner.put(`/api/telegram/routes/${opsId}`, { chat_id: String(GROUP) });
  await owner.put('/api/discord/connection', { bot_token: DISCORD_TOKEN });
  await owner.put(`/api/discord/routes/${opsId}`, { discord_channel_id: CHANNEL });
  await linkTelegram(server, owner, orgId, secret, ALICE);
  const code = (await owner.post<{ code: string }>('/api/discord/links')).body.code;
  await discordInteraction(server, discord, orgId, linkCommand(BOB, code));
  teams.app(TEAMS_APP_ID, TEAMS_SECRET);
  await owner.put('/api/teams/connection', { app_id: TEAMS_APP_ID, app_password: TEAMS_SECRET });
  await teamsActivity(server, teams, orgId, teamsInstalled(CAROL));
  await owner.put(`/api/teams/routes/${opsId}`, { conversation_id: TEAMS_CHANNEL.id });
  const teamsCode = (await owner.post<{ code: string }>('/api/teams/links')).body.code;
  await teamsActivity(server, teams, orgId, teamsMessage(CAROL, `link ${teamsCode}`));
});
afterAll(async () => {
  await close?.();
});

/** An item posted to all four apps. */
async function postedEverywhere() {
  const created = (
    await owner.post<Item>('/api/items', { title: 'Roll out?', channel_id: opsId, form: YES_NO })
  ).body;
  await slack.waitForMention('chat.postMessage', created.id);
  await telegram.waitForMention('sendMessage', created.id);
  await discord.waitForMention('POST', created.id);
  await teams.waitForMention('POST', created.id);
  return created;
}

describe('one answer, every channel told', () => {
  it('answered in Telegram: the Discord and Slack messages are updated', async () => {
    const created = await postedEverywhere();
    const res = await telegramUpdate(server, orgId, secret, callbackQuery(ALICE, `a:${created.id}:0`));
    expect(res.status).toBe(200);
    const discordUpdate = await discord.waitForMention('PATCH', created.id);
    expect(JSON.stringify(discordUpdate.body)).toContain('via telegram: Yes');
    expect(discordUpdate.body?.components).toEqual([]);
    const slackUpdate = await slack.waitForMention('chat.update', created.id);
    expect(JSON.stringify(slackUpdate.params.blocks)).toContain('via telegram');
    const telegramEdit = await telegram.waitForMention('editMessageText', 'via telegram');
    expect(telegramEdit.params.reply_markup).toEqual({ inline_keyboard: [] });
    const teamsUpdate = await teams.waitForMention('PUT', created.id);
    expect(JSON.stringify(teamsUpdate.body)).toContain('via telegram: Yes');
    const card = (
      teamsUpdate.body?.attachments as { content: { actions: { type: string }[] } }[] | undefined
    )?.[0];
    expect(card?.content.actions.map((a) => a.type)).toEqual(['Action.OpenUrl']);
  });

  it('answered in Teams: the Telegram, Discord and Slack messages are updated', async () => {
    const created = await postedEverywhere();
    const click = teamsCardAction(CAROL, 'answer', { action: `a:${created.id}:0` });
    const res = await teamsActivity(server, teams, orgId, click);
    expect(JSON.stringify(res.body)).toContain('via teams: Yes');
    const discordUpdate = await discord.waitForMention('PATCH', created.id);
    expect(JSON.stringify(discordUpdate.body)).toContain('via teams: Yes');
    const slackUpdate = await slack.waitForMention('chat.update', created.id);
    expect(JSON.stringify(slackUpdate.params.blocks)).toContain('via teams');
    const telegramEdit = await telegram.waitForMention('editMessageText', 'via teams');
    expect(telegramEdit.params.reply_markup).toEqual({ inline_keyboard: [] });
    // The second answer, in another app, changes nothing.
    const late = await discordInteraction(server, discord, orgId, componentClick(BOB, `a:${created.id}:1`));
    expect(late.body).toMatchObject({
      data: { content: 'This item was already decided (answered): nothing changed.' },
    });
    expect((await owner.get<Item>(`/api/items/${created.id}`)).body).toMatchObject({
      response: { ok: true },
      answered_via: 'teams',
    });
  });

  it('answered in Discord: the Telegram message is edited, and the Slack one updated', async () => {
    const created = await postedEverywhere();
    const res = await discordInteraction(server, discord, orgId, componentClick(BOB, `a:${created.id}:1`));
    expect(res.body).toMatchObject({ data: { content: 'Answered: No.' } });
    const edits = async () =>
      telegram.of('editMessageText').filter((c) => String(c.params.text).includes('via discord'));
    const deadline = Date.now() + 30_000;
    while ((await edits()).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    const [edit] = await edits();
    expect(String(edit?.params.text)).toContain('Answered by');
    expect(String(edit?.params.text)).toContain('via discord: No');
    expect(edit?.params.reply_markup).toEqual({ inline_keyboard: [] });
    const slackUpdate = await slack.waitForMention('chat.update', created.id);
    expect(JSON.stringify(slackUpdate.params.blocks)).toContain('via discord');
    // The second answer, in the other app, changes nothing.
    const late = await telegramUpdate(server, orgId, secret, callbackQuery(ALICE, `a:${created.id}:0`));
    expect(late.status).toBe(200);
    expect((await owner.get<Item>(`/api/items/${created.id}`)).body).toMatchObject({
      response: { ok: false },
      answered_via: 'discord',
    });
    expect(telegram.of('answerCallbackQuery').at(-1)?.params.text).toBe(
      'This item was already decided (answered): nothing changed.',
    );
  });
});
