import { answerSourceWords } from '@beckon/contracts/enums';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMail } from '../email/mail';
import { follow } from '../email/setup';
import type {
  FakeDiscord,
  FakeSlack,
  FakeTeams,
  FakeTelegram,
  FakeTwilio,
  HttpClient,
  TestServer,
} from '../harness';
import { startFakeMobilePush } from '../harness/fake-push';
import { startSmtpServer } from '../harness/smtp';
import { buttons, click, connect, interact } from '../slack/setup';
import { connectTwilio, startTwilioServer, textIn, verifyPhone } from '../twilio/setup';
import {
  BOT_TOKEN,
  callbackQuery,
  componentClick,
  connectChatApps,
  discordInteraction,
  eventually,
  type Item,
  onPlan,
  startChatFakes,
  teamsActivity,
  teamsCardAction,
  telegramUpdate,
  YES_NO,
} from './setup';

/**
 * One item, every channel at once: routed to a Slack channel, a Telegram group, a Discord channel
 * and a Teams channel, and sent to its assignees: Bob's DMs in each of them, his phone, device and
 * mailbox, and Carol's WhatsApp. Answered from each channel in turn, every other channel is told who
 * answered and where: each pair.
 */

let server: TestServer;
let slack: FakeSlack;
let telegram: FakeTelegram;
let discord: FakeDiscord;
let twilio: FakeTwilio;
let teams: FakeTeams;
let closeFakes: () => Promise<unknown>;
let phones: Awaited<ReturnType<typeof startFakeMobilePush>>;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let bobEmail: string;
let agent: HttpClient;
let orgId: string;
let opsId: string;
let bob: { id: string; api: HttpClient };
let carol: { id: string; api: HttpClient };

const TEAM = { id: 'TMATRIX', name: 'Matrix', channels: { COPS: 'ops' }, users: { UBOB: 'bob' } };
const GROUP = -1007777;
const BOB_TELEGRAM = 9001;
const CHANNEL = '778899001122334455';
const BOB_DISCORD = '889900112233445566';
const BOB_PHONE = '+15554440001';
const CAROL_PHONE = '+15554440002';
const CAROL_WHATSAPP = `whatsapp:${CAROL_PHONE}`;
const BOB_TEAMS = '29:1bob-matrix';

beforeAll(async () => {
  const fakes = await startChatFakes();
  ({ slack, telegram, discord, teams } = fakes);
  closeFakes = fakes.close;
  phones = await startFakeMobilePush();
  smtp = await startSmtpServer();
  let f: Awaited<ReturnType<typeof startTwilioServer>>['f'];
  ({ server, twilio, f } = await startTwilioServer({
    ...fakes.env,
    PUSH_SERVICE_ACCOUNT_JSON: phones.serviceAccount,
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(smtp.port),
  }));
  const team = await f.team(server.resource);
  const owner = team.owner;
  orgId = team.org.id;
  agent = server.resource.as((await f.apiKey(orgId, team.user.id)).token);
  await onPlan(server, orgId, 'team');
  opsId = (await owner.post<{ id: string }>('/api/channels', { name: 'ops', mode: 'open' })).body.id;
  bob = await team.join('member');
  carol = await team.join('member');

  await connect(server, slack, owner, TEAM);
  await owner.put(`/api/slack/routes/${opsId}`, { slack_channel_id: 'COPS' });
  await server.database.sql`
    insert into slack_user_links (org_id, slack_user_id, user_id) values (${orgId}, 'UBOB', ${bob.id})`;

  await connectChatApps(
    server,
    { telegram, discord, teams },
    { owner, orgId, channelId: opsId, name: 'ops', person: bob.api },
    {
      botId: 902,
      group: GROUP,
      telegramUser: BOB_TELEGRAM,
      appId: '776655443322110099',
      discordChannel: CHANNEL,
      discordUser: BOB_DISCORD,
      teamsUser: BOB_TEAMS,
    },
  );

  await connectTwilio(owner);
  await verifyPhone(twilio, bob.api, BOB_PHONE);
  await verifyPhone(twilio, carol.api, CAROL_PHONE, 'whatsapp');
  await bob.api.post('/api/push/register', { device_token: `phone-${bob.id}`, platform: 'mobile' });
  await bob.api.put('/api/me/email', { enabled: true });
  const [user] = await server.database.sql<{ email: string }[]>`select email from users where id = ${bob.id}`;
  bobEmail = user?.email ?? '';
});
afterAll(async () => {
  await server?.close();
  await Promise.all([closeFakes?.(), twilio?.close(), phones?.close(), smtp?.close()]);
});

const mentioning = <T extends { params?: unknown; body?: unknown }>(calls: T[], ...texts: string[]) =>
  calls.filter((c) => texts.every((text) => JSON.stringify(c.params ?? c.body).includes(text)));

type Channel = 'slack' | 'telegram' | 'discord' | 'teams' | 'sms' | 'whatsapp' | 'push' | 'email';

/** A text to a phone (SMS or WhatsApp) that says the item was answered, by whom and where. */
const toldByText = (to: string) => (via: Channel, title: string) => () =>
  twilio.waitForMessage(to, new RegExp(`${title}\\nAnswered by .* ${answerSourceWords[via]}`));

/** The answer buttons of the mail Bob got for the item (their links reach this server). */
async function mailButtons(title: string) {
  const mail = await eventually(
    async () => {
      const read = await Promise.all(smtp.messages.filter((m) => m.to.includes(bobEmail)).map(readMail));
      return read.find((m) => m.subject.includes(title));
    },
    (found) => found !== undefined,
  );
  const links = mail?.answerLinks ?? [];
  return links.map(
    (link) => new URL(new URL(link.url).pathname + new URL(link.url).search, server.resource.baseUrl).href,
  );
}

/** The push on Bob's phone that asks for the item, with its answer token. */
const askingPush = (itemId: string) =>
  eventually(
    async () =>
      phones.received.find((p) => {
        const data = (p.payload as { data?: Record<string, string> }).data;
        return data?.item_id === itemId && data.answer_token;
      }),
    (found) => found !== undefined,
  );

/** How each channel says an answer came from another (chat messages name it, texts and pushes say it). */
const SAID: Record<Channel, (via: Channel, title: string) => () => Promise<unknown>> = {
  slack: (via, title) => () =>
    eventually(
      async () => mentioning(slack.of('chat.update'), title, `via ${via}`),
      (updates) => updates.length >= 2,
    ),
  telegram: (via, title) => () =>
    eventually(
      async () => mentioning(telegram.of('editMessageText'), title, `via ${via}`),
      (edits) => edits.length >= 2,
    ),
  discord: (via, title) => () =>
    eventually(
      async () =>
        mentioning(
          discord.calls.filter((c) => c.method === 'PATCH'),
          title,
          `via ${via}`,
        ),
      (edits) => edits.length >= 2,
    ),
  teams: (via, title) => () =>
    eventually(
      async () =>
        mentioning(
          teams.calls.filter((c) => c.method === 'PUT'),
          title,
          `via ${via}`,
        ),
      (edits) => edits.length >= 2,
    ),
  sms: toldByText(BOB_PHONE),
  whatsapp: toldByText(CAROL_WHATSAPP),
  email: (_via, title) => async () => {
    const [yes] = await mailButtons(title);
    const closed = await follow(yes ?? '', 'POST');
    expect(closed.status).toBe(409);
    expect(closed.text).toContain('answered');
  },
  push: (via, title) => () =>
    eventually(
      async () =>
        server.database.sql`
          select 1 from push_queue
           where payload->>'title' = ${title} and payload->>'closed' = 'true'
             and payload->>'body' like ${`%${answerSourceWords[via]}%`}`,
      (rows) => rows.length === 1,
    ),
};

/** Answers "Yes" from one channel: as Carol on WhatsApp, as Bob everywhere else. */
const ANSWER: Record<Channel, (item: Item & { title: string }) => Promise<unknown>> = {
  slack: async (item) => {
    const [post] = mentioning(slack.of('chat.postMessage'), item.id).filter(
      (c) => c.params.channel === 'COPS',
    );
    const yes = buttons(post?.params.blocks).Yes;
    if (!yes) throw new Error('no Yes button in Slack');
    return interact(server, click(TEAM.id, 'UBOB', 'COPS', yes));
  },
  telegram: (item) =>
    telegramUpdate(
      server,
      orgId,
      telegram.webhookOf(BOT_TOKEN)?.secret ?? '',
      callbackQuery(BOB_TELEGRAM, `a:${item.id}:0`),
    ),
  discord: (item) =>
    discordInteraction(server, discord, orgId, componentClick(BOB_DISCORD, `a:${item.id}:0`)),
  teams: (item) =>
    teamsActivity(server, teams, orgId, teamsCardAction(BOB_TEAMS, 'answer', { action: `a:${item.id}:0` })),
  sms: () => textIn(server, orgId, { from: BOB_PHONE, body: 'yes' }),
  whatsapp: () => textIn(server, orgId, { from: CAROL_WHATSAPP, body: 'yes' }),
  email: async (item) => {
    const [yes] = await mailButtons(item.title);
    return follow(yes ?? '', 'POST');
  },
  push: async (item) => {
    const push = await askingPush(item.id);
    const data = (push?.payload as { data?: Record<string, string> } | undefined)?.data;
    return server.resource.post('/api/push/answer', { token: data?.answer_token, choice: 0 });
  },
};

describe('one answer, every channel told', () => {
  for (const via of Object.keys(ANSWER) as Channel[]) {
    it(`answered ${answerSourceWords[via]}: every other channel says so`, async () => {
      const title = `Matrix round ${via}`;
      const item = (
        await agent.post<Item & { title: string }>('/api/items', {
          title,
          channel_id: opsId,
          form: YES_NO,
          assignees: [bob, carol].map(({ id }) => ({ type: 'user', id })),
        })
      ).body;
      // Everywhere first: the channel route and the DM of each app, the texts, the push.
      await eventually(
        async () => [
          mentioning(slack.of('chat.postMessage'), item.id).length,
          mentioning(telegram.of('sendMessage'), item.id).length,
          mentioning(
            discord.calls.filter((c) => c.method === 'POST' && c.route.endsWith('/messages')),
            item.id,
          ).length,
          mentioning(
            teams.calls.filter((c) => c.method === 'POST'),
            item.id,
          ).length,
        ],
        (counts) => counts.every((n) => n === 2),
      );
      await Promise.all([BOB_PHONE, CAROL_WHATSAPP].map((to) => twilio.waitForMessage(to, title)));
      await Promise.all([mailButtons(title), askingPush(item.id)]);

      await ANSWER[via](item);
      const answered = await eventually(
        async () => (await agent.get<Item>(`/api/items/${item.id}`)).body,
        (current) => current.status === 'answered',
      );
      const by = via === 'whatsapp' ? carol : bob;
      expect(answered).toMatchObject({ answered_via: via, answered_by: { type: 'user', id: by.id } });
      const others = (Object.keys(SAID) as Channel[]).filter((channel) => channel !== via);
      await Promise.all(others.map((channel) => SAID[channel](via, title)()));
    }, 90_000);
  }
});
