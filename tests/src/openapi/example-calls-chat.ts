import type { FakeDiscord, FakeTelegram, HttpClient } from '../harness';
import type { ExampleRecorder } from './recorder';

/** Illustrative credentials of the chat apps' fakes (Telegram's and Discord's token shapes). */
export const EXAMPLE_BOT_TOKEN = '7012345678:AAHexampleTokenOfTheBeckonBot01';
export const EXAMPLE_DISCORD_TOKEN = `${'MTA'.repeat(8)}.GexmPl.${'e'.repeat(38)}`;

/**
 * Telegram and Discord: connect, route the deploys channel, a person's link code and status,
 * unroute, disconnect (tests/src/chat covers what the apps send back).
 */
export async function chatApps(
  record: ExampleRecorder,
  owner: HttpClient,
  fakes: { telegram: FakeTelegram; discord: FakeDiscord },
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
}
