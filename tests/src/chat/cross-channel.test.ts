import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeDiscord, FakeSlack, FakeTelegram, HttpClient, TestServer } from '../harness';
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
  telegramUpdate,
  YES_NO,
} from './setup';

let server: TestServer;
let slack: FakeSlack;
let telegram: FakeTelegram;
let discord: FakeDiscord;
let close: () => Promise<void>;
let owner: HttpClient;
let orgId: string;
let opsId: string;
let secret: string;

const GROUP = -1005555;
const ALICE = 6001;
const CHANNEL = '445566778899001122';
const BOB = '556677889900112233';

/** One organization with Slack, Telegram and Discord all routed from the same channel, and linked people. */
beforeAll(async () => {
  const started = await startChatServer();
  ({ server, slack, telegram, discord, close } = started);
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
});
afterAll(async () => {
  await close?.();
});

/** An item posted to all three, with the id of each message's first button. */
async function postedEverywhere() {
  const created = (
    await owner.post<Item>('/api/items', { title: 'Roll out?', channel_id: opsId, form: YES_NO })
  ).body;
  await slack.waitForMention('chat.postMessage', created.id);
  await telegram.waitForMention('sendMessage', created.id);
  await discord.waitForMention('POST', created.id);
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
