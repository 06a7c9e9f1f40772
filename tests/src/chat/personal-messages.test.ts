import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeDiscord, FakeSlack, FakeTelegram, HttpClient, TestServer } from '../harness';
import { connect } from '../slack/setup';
import {
  DISCORD_TOKEN,
  discordInteraction,
  eventually,
  type Item,
  linkCommand,
  linkTelegram,
  onPlan,
  startChatServer,
  BOT_TOKEN as TELEGRAM_TOKEN,
  YES_NO,
} from './setup';

/**
 * The direct messages of a person who linked Slack, Telegram and Discord are notifications like
 * pushes and mails: a new item assigned to them, an assignment, each reminder of an item that
 * repeats until acknowledged, all under the person's preferences (muted apps, quiet hours).
 */

let server: TestServer;
let slack: FakeSlack;
let telegram: FakeTelegram;
let discord: FakeDiscord;
let close: () => Promise<void>;
let owner: HttpClient;
let agent: HttpClient;
let bob: { id: string; api: HttpClient };
let orgId: string;
let opsId: string;

const BOB_TELEGRAM = 7001;
const BOB_DISCORD = '667788990011223344';
const BOB_SLACK = 'UBOB';
const POST_TASKS = ['slack_post_item', 'telegram_post_item', 'discord_post_item'];

beforeAll(async () => {
  const started = await startChatServer();
  ({ server, slack, telegram, discord, close } = started);
  const team = await started.f.team(server.resource);
  owner = team.owner;
  orgId = team.org.id;
  agent = server.resource.as((await started.f.apiKey(orgId, team.user.id)).token);
  bob = await team.join('member');
  await onPlan(server, orgId, 'team');
  opsId = (await owner.post<{ id: string }>('/api/channels', { name: 'ops', mode: 'open' })).body.id;
  await connect(server, slack, owner, {
    id: 'TDM',
    name: 'DMs',
    channels: {},
    users: { [BOB_SLACK]: 'bob' },
  });
  await server.database.sql`
    insert into slack_user_links (org_id, slack_user_id, user_id) values (${orgId}, ${BOB_SLACK}, ${bob.id})`;
  telegram.bot(TELEGRAM_TOKEN, 901, 'beckon_dm_bot');
  telegram.chat(BOB_TELEGRAM, { type: 'private', first_name: 'Bob' });
  await owner.put('/api/telegram/connection', { bot_token: TELEGRAM_TOKEN });
  await linkTelegram(server, bob.api, orgId, telegram.webhookOf(TELEGRAM_TOKEN)?.secret ?? '', BOB_TELEGRAM);
  discord.app(DISCORD_TOKEN, '998877665544332211', 'Beckon');
  await owner.put('/api/discord/connection', { bot_token: DISCORD_TOKEN });
  const code = (await bob.api.post<{ code: string }>('/api/discord/links')).body.code;
  await discordInteraction(server, discord, orgId, linkCommand(BOB_DISCORD, code));
});
afterAll(async () => {
  await close?.();
});

const mentions = <T extends { params?: unknown; body?: unknown }>(calls: T[], itemId: string) =>
  calls.filter((c) => JSON.stringify(c.params ?? c.body).includes(itemId));
const slackPosts = (itemId: string) => mentions(slack.of('chat.postMessage'), itemId);
const telegramPosts = (itemId: string) => mentions(telegram.of('sendMessage'), itemId);
const discordPosts = (itemId: string) =>
  mentions(
    discord.calls.filter((c) => c.method === 'POST' && c.route === `/channels/7${BOB_DISCORD}/messages`),
    itemId,
  );

/** Waits until no message of the apps is queued any more. */
const settled = () =>
  eventually(
    async () =>
      (
        await server.database.sql<{ n: number }[]>`
          select count(*)::int as n from graphile_worker.jobs where task_identifier = any(${POST_TASKS})`
      )[0]!.n,
    (n) => n === 0,
  );

const ask = async (body: object) =>
  (await agent.post<Item>('/api/items', { channel_id: opsId, form: YES_NO, ...body })).body;

describe('direct messages as notifications', () => {
  it("reach an assignee's DM in each app, and each reminder follows the message there", async () => {
    const item = await ask({
      title: 'Payments failing',
      assignees: [{ type: 'user', id: bob.id }],
      repeat_until_ack: { every_minutes: 5 },
    });
    await eventually(
      async () => [slackPosts(item.id), telegramPosts(item.id), discordPosts(item.id)],
      (posts) => posts.every((p) => p.length === 1),
    );
    expect(slackPosts(item.id)[0]?.params.channel).toBe(BOB_SLACK);
    expect(telegramPosts(item.id)[0]?.params.chat_id).toBe(String(BOB_TELEGRAM));

    const [job] = await server.database.sql<{ id: string }[]>`
      select id from graphile_worker._private_jobs where key = ${`repeat_item:${item.id}`}`;
    await server.database.sql`update graphile_worker._private_jobs set run_at = now() where id = ${job!.id}`;
    const nudge = 'Reminder: Payments failing: still waiting for an answer';
    const [slackNudge, telegramNudge, discordNudge] = await Promise.all([
      slack.waitForMention('chat.postMessage', nudge),
      telegram.waitForMention('sendMessage', nudge),
      discord.waitForMention('POST', nudge),
    ]);
    const [slackMessage] = await server.database.sql<{ slack_channel_id: string; ts: string }[]>`
      select slack_channel_id, ts from slack_messages where item_id = ${item.id}`;
    expect(slackNudge.params).toMatchObject({
      channel: slackMessage?.slack_channel_id,
      thread_ts: slackMessage?.ts,
      // Form-encoded, as Slack's client sends it.
      reply_broadcast: 'true',
    });
    const [telegramMessage] = await server.database.sql<{ message_id: string }[]>`
      select message_id from telegram_messages where item_id = ${item.id}`;
    expect(telegramNudge.params).toMatchObject({
      chat_id: String(BOB_TELEGRAM),
      reply_parameters: { message_id: Number(telegramMessage?.message_id) },
    });
    const [discordMessage] = await server.database.sql<{ message_id: string }[]>`
      select message_id from discord_messages where item_id = ${item.id}`;
    expect(discordNudge).toMatchObject({
      route: `/channels/7${BOB_DISCORD}/messages`,
      body: { message_reference: { message_id: discordMessage?.message_id } },
    });
    // The nudges follow the messages: no second copy of the buttons anywhere.
    await settled();
    expect([slackPosts(item.id), telegramPosts(item.id), discordPosts(item.id)].map((p) => p.length)).toEqual(
      [1, 1, 1],
    );
  });

  it('post the whole item, buttons and all, to a person it is assigned to later', async () => {
    const item = await ask({ title: 'Rotate the keys?' });
    await settled();
    expect(telegramPosts(item.id)).toEqual([]);
    const res = await owner.post(`/api/items/${item.id}/assign`, {
      assignees: [{ type: 'user', id: bob.id }],
    });
    expect(res.status).toBe(200);
    const post = await telegram.waitForMention('sendMessage', item.id);
    expect(post.params.chat_id).toBe(String(BOB_TELEGRAM));
    expect(JSON.stringify(post.params.reply_markup)).toContain(`a:${item.id}:0`);
    await slack.waitForMention('chat.postMessage', item.id);
    await discord.waitForMention('POST', item.id);
  });

  it("keep to the person's preferences: a muted app and quiet hours send nothing", async () => {
    const hour = new Date().getUTCHours();
    const at = (h: number) => `${String((h + 24) % 24).padStart(2, '0')}:00`;
    const saved = await bob.api.put('/api/me/preferences', {
      muted_apps: ['discord'],
      quiet_hours_enabled: true,
      quiet_hours_start: at(hour - 1),
      quiet_hours_end: at(hour + 2),
      timezone: 'UTC',
      quiet_hours_allow_levels: 'error',
    });
    expect(saved.body).toMatchObject({ muted_apps: ['discord'] });
    const assignees = [{ type: 'user', id: bob.id }];
    const quiet = await ask({ title: 'Quiet one', assignees });
    const urgent = await ask({ title: 'Urgent one', level: 'error', assignees });
    await telegram.waitForMention('sendMessage', urgent.id);
    await slack.waitForMention('chat.postMessage', urgent.id);
    await settled();
    expect([slackPosts(quiet.id), telegramPosts(quiet.id), discordPosts(quiet.id)].flat()).toEqual([]);
    expect(discordPosts(urgent.id)).toEqual([]);
  });

  it("keep to the person's minimum level: below it no app is sent anything", async () => {
    const saved = await bob.api.put('/api/me/preferences', {
      muted_apps: [],
      quiet_hours_enabled: false,
      min_level: 'warning',
    });
    expect(saved.body).toMatchObject({ min_level: 'warning' });
    const assignees = [{ type: 'user', id: bob.id }];
    const minor = await ask({ title: 'Minor one', level: 'info', assignees });
    const serious = await ask({ title: 'Serious one', level: 'warning', assignees });
    await telegram.waitForMention('sendMessage', serious.id);
    await slack.waitForMention('chat.postMessage', serious.id);
    await discord.waitForMention('POST', serious.id);
    await settled();
    expect([slackPosts(minor.id), telegramPosts(minor.id), discordPosts(minor.id)].flat()).toEqual([]);
  });
});
