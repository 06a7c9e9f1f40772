import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BOT_TOKEN,
  callbackQuery,
  componentClick,
  connectChatApps,
  discordInteraction,
  startChatFakes,
  teamsActivity,
  teamsCardAction,
  telegramUpdate,
  YES_NO,
} from '../chat/setup';
import type { FakeDiscord, FakeTeams, FakeTelegram, FakeTwilio, HttpClient, TestServer } from '../harness';
import { connectTwilio, onPlan, startTwilioServer, textIn, verifyPhone } from '../twilio/setup';

/**
 * An item whose answer needs a fresh verification (`require_reauth`) in Telegram, Discord,
 * Microsoft Teams and texts: the message offers the item's page, never an answer, and a button
 * press or a reply that would answer it (a forged one, or one made for a message of another
 * item) is refused with that page, recording nothing. Mail, push and Slack: step-up.test.ts.
 */

let server: TestServer;
let telegram: FakeTelegram;
let discord: FakeDiscord;
let teams: FakeTeams;
let twilio: FakeTwilio;
let closeFakes: () => Promise<unknown>;
let agent: HttpClient;
let owner: HttpClient;
let orgId: string;
let opsId: string;
let bobId: string;

const GROUP = -1008888;
const BOB_TELEGRAM = 9101;
const CHANNEL = '778899001122334466';
const BOB_DISCORD = '889900112233445577';
const BOB_TEAMS = '29:1bob-step-up';
const BOB_PHONE = '+15554440101';
const ANY = { method: 'any', within_minutes: 5 };

beforeAll(async () => {
  const fakes = await startChatFakes();
  ({ telegram, discord, teams } = fakes);
  closeFakes = fakes.close;
  let f: Awaited<ReturnType<typeof startTwilioServer>>['f'];
  ({ server, twilio, f } = await startTwilioServer(fakes.env));
  const team = await f.team(server.resource);
  owner = team.owner;
  orgId = team.org.id;
  agent = server.resource.as((await f.apiKey(orgId, team.user.id)).token);
  await onPlan(server, orgId, 'team');
  opsId = (await owner.post<{ id: string }>('/api/channels', { name: 'risk', mode: 'open' })).body.id;
  const bob = await team.join('member');
  bobId = bob.id;

  await connectChatApps(
    server,
    { telegram, discord, teams },
    { owner, orgId, channelId: opsId, name: 'risk', person: bob.api },
    {
      botId: 903,
      group: GROUP,
      telegramUser: BOB_TELEGRAM,
      appId: '776655443322110088',
      discordChannel: CHANNEL,
      discordUser: BOB_DISCORD,
      teamsUser: BOB_TEAMS,
    },
  );

  await connectTwilio(owner);
  await verifyPhone(twilio, bob.api, BOB_PHONE);
}, 120_000);
afterAll(async () => {
  await server?.close();
  await Promise.all([closeFakes?.(), twilio?.close()]);
});

const telegramSecret = () => telegram.webhookOf(BOT_TOKEN)?.secret ?? '';
const pageOf = (id: string) => `${server.deps.env.APP_URL}/items/${id}`;
const toldToGo = (id: string) =>
  `This decision must be confirmed in Beckon, with your passkey or a fresh sign-in: ${pageOf(id)}`;

/** A risky yes/no question in the routed channel, assigned to Bob (so also in his DMs and texts). */
async function riskyItem(title: string) {
  const res = await agent.post<{ id: string; require_reauth: unknown }>('/api/items', {
    title,
    form: YES_NO,
    channel_id: opsId,
    assignees: [{ type: 'user', id: bobId }],
    require_reauth: ANY,
  });
  expect(res.body.require_reauth).toEqual(ANY);
  return res.body;
}

/** Still open, with no answer and no answer in its audit trail. */
async function expectUnanswered(id: string) {
  const item = (await owner.get<{ status: string; response: unknown }>(`/api/items/${id}`)).body;
  expect(item).toMatchObject({ status: 'open', response: null });
  const audit = await owner.get<{ entries: { action: string }[] }>(`/api/audit?item_id=${id}`);
  expect(audit.body.entries.map((e) => e.action)).not.toContain('item.answer');
}

describe('require_reauth in chat apps and texts', () => {
  it('Telegram: the keyboard is a link to the page; a forged press is told to go there', async () => {
    const item = await riskyItem('Wire 40,000 EUR (Telegram)?');
    const posted = await telegram.waitForMention('sendMessage', item.id);
    const keyboard = (posted.params.reply_markup as { inline_keyboard: object[][] }).inline_keyboard;
    expect(keyboard).toEqual([[{ text: 'Answer in Beckon', url: pageOf(item.id) }]]);

    const pressed = await telegramUpdate(
      server,
      orgId,
      telegramSecret(),
      callbackQuery(BOB_TELEGRAM, `a:${item.id}:0`),
    );
    expect(pressed.status).toBe(200);
    const told = telegram.of('answerCallbackQuery').at(-1);
    expect(told?.params.text).toBe(toldToGo(item.id));
    await expectUnanswered(item.id);
  });

  it('Discord: the only component is a link to the page; a forged button or menu choice is told to go there', async () => {
    const item = await riskyItem('Wire 40,000 EUR (Discord)?');
    const posted = await discord.waitForMention('POST', item.id);
    expect(posted.body?.components).toEqual([
      { type: 1, components: [{ type: 2, style: 5, label: 'Answer in Beckon', url: pageOf(item.id) }] },
    ]);

    const button = await discordInteraction(
      server,
      discord,
      orgId,
      componentClick(BOB_DISCORD, `a:${item.id}:0`),
    );
    expect(button.body).toMatchObject({ type: 4, data: { content: toldToGo(item.id), flags: 64 } });
    const menu = componentClick(BOB_DISCORD, `s:${item.id}`, [`a:${item.id}:1`]);
    expect((await discordInteraction(server, discord, orgId, menu)).body).toMatchObject({
      data: { content: toldToGo(item.id) },
    });
    await expectUnanswered(item.id);
  });

  it('Microsoft Teams: the card’s only action opens the page; a forged Action.Execute is told to go there', async () => {
    const item = await riskyItem('Wire 40,000 EUR (Teams)?');
    const posted = await teams.waitForMention('POST', item.id);
    type Card = { body: { text: string }[]; actions: object[] };
    const cardOf = (body: unknown) => (body as { attachments: { content: Card }[] }).attachments[0]?.content;
    expect(cardOf(posted.body)?.actions).toEqual([
      { type: 'Action.OpenUrl', title: 'Answer in Beckon', url: pageOf(item.id) },
    ]);

    const forged = teamsCardAction(BOB_TEAMS, 'answer', { action: `a:${item.id}:0` });
    const clicked = await teamsActivity(server, teams, orgId, forged);
    const card = (clicked.body?.value ?? null) as Card | null;
    expect(card?.body.map((b) => b.text)).toContain(toldToGo(item.id));
    expect(card?.actions).toEqual([
      { type: 'Action.OpenUrl', title: 'Answer in Beckon', url: pageOf(item.id) },
    ]);
    await expectUnanswered(item.id);
  });

  it('texts: no numbered menu but the page; a numbered, worded or referenced reply answers nothing', async () => {
    const item = await riskyItem('Wire 40,000 EUR (SMS)?');
    const text = await twilio.waitForMessage(BOB_PHONE, 'Wire 40,000 EUR (SMS)?');
    const ref = /^Beckon #(\d+):/.exec(text.body)?.[1];
    expect(text.body).toBe(`Beckon #${ref}: Wire 40,000 EUR (SMS)?\nAnswer here: ${pageOf(item.id)}`);

    for (const body of ['1', 'yes', `#${ref} 1`, `${ref} yes`]) {
      const replied = await textIn(server, orgId, { from: BOB_PHONE, body });
      expect(replied.reply).toBe(
        `Beckon #${ref}: Wire 40,000 EUR (SMS)?\nAnswer it on its page: ${pageOf(item.id)}`,
      );
    }
    await expectUnanswered(item.id);
  });
});
