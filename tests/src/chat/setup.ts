import {
  deliverUpdate,
  Factories,
  type HttpClient,
  type SignOptions,
  startFakeDiscord,
  startFakeSlack,
  startFakeTeams,
  startFakeTelegram,
  startTestServer,
  type TestServer,
} from '../harness';
import { SIGNING_SECRET, APP as SLACK_APP } from '../slack/setup';

export { eventually, onPlan } from '../slack/setup';

export type Item = {
  id: string;
  status: string;
  response: Record<string, unknown> | null;
  answered_by: { type: string; id: string } | null;
  answered_via: string | null;
};

export const YES_NO = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'Ship it?', required: true }] };

/** Fakes of Slack, Telegram, Discord and Teams, with the server settings that point at them. */
export async function startChatFakes() {
  const [slack, telegram, discord, teams] = await Promise.all([
    startFakeSlack(SLACK_APP),
    startFakeTelegram(),
    startFakeDiscord(),
    startFakeTeams(),
  ]);
  const env = {
    SLACK_CLIENT_ID: SLACK_APP.clientId,
    SLACK_CLIENT_SECRET: SLACK_APP.clientSecret,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_TOKEN_KEY: 'a-test-key-for-slack-bot-tokens-at-rest',
    SLACK_API_URL: slack.url,
    TELEGRAM_TOKEN_KEY: 'a-test-key-for-telegram-bot-tokens-at-rest',
    TELEGRAM_API_URL: telegram.url,
    DISCORD_TOKEN_KEY: 'a-test-key-for-discord-bot-tokens-at-rest',
    DISCORD_API_URL: discord.url,
    TEAMS_TOKEN_KEY: 'a-test-key-for-teams-bot-secrets-at-rest',
    TEAMS_OPENID_URL: teams.openIdUrl,
    TEAMS_LOGIN_URL: teams.loginUrl,
  };
  const close = () => Promise.all([slack.close(), telegram.close(), discord.close(), teams.close()]);
  return { slack, telegram, discord, teams, env, close };
}

/** A server with Slack, Telegram, Discord and Teams configured against their fakes, and the worker running. */
export async function startChatServer() {
  const fakes = await startChatFakes();
  const server = await startTestServer({ worker: true, env: fakes.env });
  const f = new Factories(server.database.db);
  const close = async () => {
    await server.close();
    await fakes.close();
  };
  return { ...fakes, server, f, close };
}

export const BOT_TOKEN = '123456:AAbbCCddEEffGGhhIIjjKKllMMnnOOpp';
export const DISCORD_TOKEN = `${'M'.repeat(24)}.${'G'.repeat(6)}.${'x'.repeat(38)}`;

/** Where Telegram sends an organization's updates, on the test server. */
export const telegramHook = (server: TestServer, orgId: string) =>
  `${server.resource.baseUrl}/webhooks/telegram/${orgId}`;

/** An update sent as Telegram sends it, with the secret token the bot's webhook was set with. */
export function telegramUpdate(
  server: TestServer,
  orgId: string,
  secret: string | null,
  update: Record<string, unknown>,
) {
  return deliverUpdate(telegramHook(server, orgId), secret, update);
}

let updateId = 1000;
/** A click on an inline keyboard button by Telegram user `from`. */
export const callbackQuery = (from: number, data: string) => ({
  update_id: ++updateId,
  callback_query: {
    id: `cb-${updateId}`,
    from: { id: from, is_bot: false, first_name: 'P' },
    chat_instance: '1',
    data,
  },
});
/** `/start <code>` sent by Telegram user `from` in their private chat with the bot. */
export const startMessage = (from: number, code: string) => ({
  update_id: ++updateId,
  message: {
    message_id: updateId,
    date: Math.floor(Date.now() / 1000),
    chat: { id: from, type: 'private', first_name: 'P' },
    from: { id: from, is_bot: false, first_name: 'P' },
    text: `/start ${code}`,
  },
});

/** Links Telegram user `from` to the person of `api` the way they do it: the dashboard's deep link, then Start. */
export async function linkTelegram(
  server: TestServer,
  api: HttpClient,
  orgId: string,
  secret: string,
  from: number,
) {
  const link = await api.post<{ url: string; code: string }>('/api/telegram/links');
  if (link.status !== 200) throw new Error(`link: ${link.status}`);
  const code = new URL(link.body.url).searchParams.get('start') ?? '';
  return telegramUpdate(server, orgId, secret, startMessage(from, code));
}

/** An interaction posted as Discord posts it: signed with the application's key (or as told). */
export async function discordInteraction(
  server: TestServer,
  discord: Awaited<ReturnType<typeof startFakeDiscord>>,
  orgId: string,
  interaction: object,
  options: { timestamp?: number; tamper?: boolean; unsigned?: boolean } = {},
) {
  const body = JSON.stringify(interaction);
  const headers = options.unsigned ? {} : discord.sign(body, options.timestamp);
  const res = await fetch(`${server.resource.baseUrl}/webhooks/discord/${orgId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: options.tamper ? body.replace('"type":3', '"type":2') : body,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

let interactionId = 1100000000000000000n;
/** A click on a message component by Discord user `user` in a server channel. */
export const componentClick = (user: string, customId: string, values?: string[]) => ({
  id: String(++interactionId),
  type: 3,
  token: 'interaction-token',
  data: { custom_id: customId, component_type: values ? 3 : 2, ...(values ? { values } : {}) },
  member: { user: { id: user, username: 'someone' } },
});
/** The application's /beckon-link command with `code`, sent by Discord user `user`. */
export const linkCommand = (user: string, code: string) => ({
  id: String(++interactionId),
  type: 2,
  token: 'interaction-token',
  data: { name: 'beckon-link', type: 1, options: [{ name: 'code', type: 3, value: code }] },
  member: { user: { id: user, username: 'someone' } },
});

export const TEAMS_APP_ID = '5f0c2a7e-4b1d-4c8e-9a3f-2d6b8e1c7a90';
export const TEAMS_SECRET = 'teams~client~secret~value';

/** An activity posted as Bot Framework posts it: with its JWT for the bot (spoiled, or left out, as told). */
export async function teamsActivity(
  server: TestServer,
  teams: Awaited<ReturnType<typeof startFakeTeams>>,
  orgId: string,
  activity: Record<string, unknown>,
  options: SignOptions & { unsigned?: boolean } = {},
) {
  const token = options.unsigned ? null : await teams.sign(TEAMS_APP_ID, options);
  const res = await fetch(`${server.resource.baseUrl}/webhooks/teams/${orgId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ serviceUrl: teams.serviceUrl, ...activity }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

let activityId = 5000;
type Conversation = { id: string; conversationType: string; name?: string };
export const TEAMS_CHANNEL: Conversation = { id: '19:ops@thread.tacv2', conversationType: 'channel' };
const teamsBase = (user: string, conversation: Conversation) => ({
  id: `activity-${++activityId}`,
  channelId: 'msteams',
  from: { id: user, name: `Person ${user}` },
  recipient: { id: `28:${TEAMS_APP_ID}` },
  conversation,
  channelData: {
    team: { id: '19:team@thread.tacv2', name: 'Ops team' },
    channel: { id: conversation.id, name: 'ops' },
  },
});
/** The bot added to a team's channel (or a person's chat with it). */
export const teamsInstalled = (user: string, conversation: Conversation = TEAMS_CHANNEL) => ({
  ...teamsBase(user, conversation),
  type: 'conversationUpdate',
  membersAdded: [{ id: `28:${TEAMS_APP_ID}` }],
});
/** A message to the bot, in a person's chat with it unless told. */
export const teamsMessage = (user: string, text: string, conversation?: Conversation) => ({
  ...teamsBase(user, conversation ?? { id: `a:personal-${user}`, conversationType: 'personal' }),
  type: 'message',
  text,
});
/** A click on a card's `Action.Execute` (or Teams asking for the card's refresh). */
export const teamsCardAction = (user: string, verb: string, data: Record<string, unknown>) => ({
  ...teamsBase(user, TEAMS_CHANNEL),
  type: 'invoke',
  name: 'adaptiveCard/action',
  value: { action: { type: 'Action.Execute', verb, data }, trigger: 'manual' },
});

type ChatFakes = Pick<Awaited<ReturnType<typeof startChatFakes>>, 'telegram' | 'discord' | 'teams'>;

/**
 * Telegram, Discord and Teams connected by `owner` and routed from the channel `channelId`
 * (a Telegram group and a Discord channel called `name`, the Teams channel), with the person of
 * `person` linked in each app as they link themselves.
 */
export async function connectChatApps(
  server: TestServer,
  { telegram, discord, teams }: ChatFakes,
  setup: { owner: HttpClient; orgId: string; channelId: string; name: string; person: HttpClient },
  ids: {
    botId: number;
    group: number;
    telegramUser: number;
    appId: string;
    discordChannel: string;
    discordUser: string;
    teamsUser: string;
  },
) {
  const { owner, orgId, channelId, name, person } = setup;
  telegram.bot(BOT_TOKEN, ids.botId, `beckon_${name}_bot`);
  telegram.chat(ids.group, { type: 'group', title: name });
  telegram.chat(ids.telegramUser, { type: 'private', first_name: 'P' });
  await owner.put('/api/telegram/connection', { bot_token: BOT_TOKEN });
  await owner.put(`/api/telegram/routes/${channelId}`, { chat_id: String(ids.group) });
  await linkTelegram(server, person, orgId, telegram.webhookOf(BOT_TOKEN)?.secret ?? '', ids.telegramUser);

  discord.app(DISCORD_TOKEN, ids.appId, 'Beckon');
  discord.channel(ids.discordChannel, name);
  await owner.put('/api/discord/connection', { bot_token: DISCORD_TOKEN });
  await owner.put(`/api/discord/routes/${channelId}`, { discord_channel_id: ids.discordChannel });
  const code = (await person.post<{ code: string }>('/api/discord/links')).body.code;
  await discordInteraction(server, discord, orgId, linkCommand(ids.discordUser, code));

  teams.app(TEAMS_APP_ID, TEAMS_SECRET);
  await owner.put('/api/teams/connection', { app_id: TEAMS_APP_ID, app_password: TEAMS_SECRET });
  await teamsActivity(server, teams, orgId, teamsInstalled(ids.teamsUser));
  await owner.put(`/api/teams/routes/${channelId}`, { conversation_id: TEAMS_CHANNEL.id });
  const teamsCode = (await person.post<{ code: string }>('/api/teams/links')).body.code;
  await teamsActivity(server, teams, orgId, teamsMessage(ids.teamsUser, `link ${teamsCode}`));
}
