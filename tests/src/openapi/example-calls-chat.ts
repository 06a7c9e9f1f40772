import type { FakeDiscord, FakeTeams, FakeTelegram, HttpClient } from '../harness';
import type { ExampleRecorder } from './recorder';

/** Illustrative credentials of the chat apps' fakes (Telegram's and Discord's token shapes). */
export const EXAMPLE_BOT_TOKEN = '7012345678:AAHexampleTokenOfTheBeckonBot01';
export const EXAMPLE_DISCORD_TOKEN = `${'MTA'.repeat(8)}.GexmPl.${'e'.repeat(38)}`;
/** An illustrative Azure Bot registration (Microsoft App ID and client secret) and Teams channel. */
export const EXAMPLE_TEAMS_APP = {
  app_id: '3f2b9c1e-7a4d-4e8b-b6c2-9d1e5f7a3b20',
  app_password: 'Xq8~example.client-secret',
};
const EXAMPLE_TEAMS_CHANNEL = '19:deploys0example@thread.tacv2';

/**
 * Telegram, Discord and Teams: connect, route the deploys channel, a person's link code and status,
 * unroute, disconnect (tests/src/chat covers what the apps send back).
 */
export async function chatApps(
  record: ExampleRecorder,
  owner: HttpClient,
  orgId: string,
  fakes: { telegram: FakeTelegram; discord: FakeDiscord; teams: FakeTeams },
) {
  const call = record.on('resource');
  fakes.telegram.bot(EXAMPLE_BOT_TOKEN, 7012345678, 'acme_beckon_bot');
  fakes.telegram.chat(-1001987654321, { type: 'supergroup', title: 'Deploys' });
  fakes.discord.app(EXAMPLE_DISCORD_TOKEN, '1234567890123456789', 'Acme Beckon');
  fakes.discord.channel('1098765432109876543', 'deploys');
  const channels = await call<{ id: string; name: string }[]>(owner, 'GET /channels');
  const channel = { channel_id: channels.find((c) => c.name === 'deploys')?.id ?? '' };

  await call(owner, 'PUT /telegram/connection', { body: { bot_token: EXAMPLE_BOT_TOKEN } });
  await call(owner, 'GET /telegram/connection');
  await call(owner, 'PUT /telegram/routes/{channel_id}', {
    params: channel,
    body: { chat_id: '-1001987654321' },
  });
  await call(owner, 'GET /telegram/routes');
  await call(owner, 'POST /telegram/links');
  await call(owner, 'GET /telegram/links/me');
  await call(owner, 'DELETE /telegram/routes/{channel_id}', { params: channel });
  await call(owner, 'DELETE /telegram/connection');

  await call(owner, 'PUT /discord/connection', { body: { bot_token: EXAMPLE_DISCORD_TOKEN } });
  await call(owner, 'GET /discord/connection');
  await call(owner, 'PUT /discord/routes/{channel_id}', {
    params: channel,
    body: { discord_channel_id: '1098765432109876543' },
  });
  await call(owner, 'GET /discord/routes');
  await call(owner, 'POST /discord/links');
  await call(owner, 'GET /discord/links/me');
  await call(owner, 'DELETE /discord/routes/{channel_id}', { params: channel });
  await call(owner, 'DELETE /discord/connection');

  fakes.teams.app(EXAMPLE_TEAMS_APP.app_id, EXAMPLE_TEAMS_APP.app_password);
  await call(owner, 'PUT /teams/connection', { body: EXAMPLE_TEAMS_APP });
  await call(owner, 'GET /teams/connection');
  // Bot Framework tells Beckon of the channel the bot was added to (its service URL with it).
  const installed = await fetch(`${owner.baseUrl}/webhooks/teams/${orgId}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${await fakes.teams.sign(EXAMPLE_TEAMS_APP.app_id)}`,
    },
    body: JSON.stringify({
      type: 'conversationUpdate',
      id: 'f:example-install',
      channelId: 'msteams',
      serviceUrl: fakes.teams.serviceUrl,
      from: { id: '29:example-installer' },
      conversation: { id: EXAMPLE_TEAMS_CHANNEL, conversationType: 'channel' },
      channelData: { team: { name: 'Acme' }, channel: { name: 'deploys' } },
    }),
  });
  if (installed.status !== 200) throw new Error(`teams conversationUpdate: ${installed.status}`);
  await call(owner, 'GET /teams/conversations');
  await call(owner, 'PUT /teams/routes/{channel_id}', {
    params: channel,
    body: { conversation_id: EXAMPLE_TEAMS_CHANNEL },
  });
  await call(owner, 'GET /teams/routes');
  await call(owner, 'POST /teams/links');
  await call(owner, 'GET /teams/links/me');
  await call(owner, 'DELETE /teams/routes/{channel_id}', { params: channel });
  await call(owner, 'DELETE /teams/connection');
}
