import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeTelegram, type HttpClient, planLimitBody, type TestServer } from '../harness';
import {
  BOT_TOKEN,
  callbackQuery,
  eventually,
  type Item,
  linkTelegram,
  onPlan,
  startChatServer,
  telegramUpdate,
  YES_NO,
} from './setup';

let server: TestServer;
let telegram: FakeTelegram;
let close: () => Promise<void>;
let owner: HttpClient;
let agent: HttpClient;
let ownerId: string;
let orgId: string;
let opsId: string;
let secret: string;

const GROUP = -1001234;
const ALICE = 5001;
const MALLORY = 5002;

beforeAll(async () => {
  const started = await startChatServer();
  ({ server, telegram, close } = started);
  const team = await started.f.team(server.resource);
  owner = team.owner;
  ownerId = team.user.id;
  agent = server.resource.as((await started.f.apiKey(team.org.id, ownerId)).token);
  orgId = team.org.id;
  telegram.bot(BOT_TOKEN, 777, 'beckon_test_bot');
  telegram.chat(GROUP, { type: 'supergroup', title: 'Ops room' });
  telegram.chat(ALICE, { type: 'private', first_name: 'Alice' });
  opsId = (await owner.post<{ id: string }>('/api/channels', { name: 'ops', mode: 'open' })).body.id;
});
afterAll(async () => {
  await close?.();
});

const item = async (id: string) => (await owner.get<Item>(`/api/items/${id}`)).body;
const keyboardOf = (params: Record<string, unknown>) =>
  (params.reply_markup as { inline_keyboard: { text: string; callback_data?: string; url?: string }[][] })
    .inline_keyboard;

async function posted(form: object | undefined = YES_NO) {
  const created = (await owner.post<Item>('/api/items', { title: 'Deploy v2?', channel_id: opsId, form }))
    .body;
  const message = await telegram.waitForMention('sendMessage', created.id);
  return { item: created, message, keyboard: keyboardOf(message.params) };
}

describe('connecting a bot', () => {
  it('is a Team plan feature: Free is refused with the plan-gate 402', async () => {
    const res = await owner.put('/api/telegram/connection', { bot_token: BOT_TOKEN });
    expect(res.status).toBe(402);
    expect(res.body).toEqual(planLimitBody('telegram_bots', 0, 0));
  });

  it('refuses a token Telegram does not accept', async () => {
    await onPlan(server, orgId, 'team');
    const res = await owner.put('/api/telegram/connection', {
      bot_token: '999:AAnotAtokenTelegramKnowsAtAll1',
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'invalid_request',
      fields: { bot_token: 'Telegram does not accept this token' },
    });
  });

  it("connects the bot and sets its webhook to the organization's URL with a secret token", async () => {
    const res = await owner.put<{ connection: Record<string, string> }>('/api/telegram/connection', {
      bot_token: BOT_TOKEN,
    });
    expect(res.status).toBe(200);
    expect(res.body.connection).toMatchObject({ bot_id: '777', bot_username: 'beckon_test_bot' });
    const hook = telegram.webhookOf(BOT_TOKEN);
    expect(hook?.url).toBe(res.body.connection.webhook_url);
    expect(hook?.url).toMatch(new RegExp(`/webhooks/telegram/${orgId}$`));
    expect(hook?.secret).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    secret = hook?.secret ?? '';
    const [stored] = await server.database.sql<{ token_ciphertext: string }[]>`
      select token_ciphertext from telegram_connections where org_id = ${orgId}`;
    expect(stored?.token_ciphertext).not.toContain(BOT_TOKEN.split(':')[1]);
  });

  it('routes a channel to a chat the bot can see, and refuses one it cannot', async () => {
    const unknown = await owner.put(`/api/telegram/routes/${opsId}`, { chat_id: '-100999' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({
      code: 'invalid_request',
      fields: { chat_id: 'not a chat the bot can see' },
    });
    const res = await owner.put(`/api/telegram/routes/${opsId}`, { chat_id: String(GROUP) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ channel_id: opsId, chat_id: String(GROUP), chat_title: 'Ops room' });
  });
});

describe('updates from Telegram', () => {
  it('refuses a wrong or missing secret token with 401, and reads nothing', async () => {
    const { item: created, keyboard } = await posted();
    const click = callbackQuery(ALICE, keyboard[0]?.[0]?.callback_data ?? '');
    const wrong = await telegramUpdate(server, orgId, `${secret.slice(0, -1)}x`, click);
    expect(wrong).toEqual({
      status: 401,
      body: { error: 'invalid secret token', code: 'invalid_signature' },
    });
    expect((await telegramUpdate(server, orgId, null, click)).status).toBe(401);
    // Another organization's URL with this bot's secret: the secret is the organization's own.
    const other = await telegramUpdate(server, '00000000-0000-4000-8000-000000000000', secret, click);
    expect(other.status).toBe(401);
    expect((await item(created.id)).status).toBe('open');
  });

  it('posts the item with its yes/no keyboard, as a delivery', async () => {
    const { item: created, message, keyboard } = await posted();
    expect(message.params.chat_id).toBe(String(GROUP));
    expect(message.token).toBe(BOT_TOKEN);
    expect(keyboard.map((row) => row[0]?.text)).toEqual(['Yes', 'No']);
    expect(keyboard[0]?.[0]?.callback_data).toBe(`a:${created.id}:0`);
    const deliveries = await eventually(
      async () =>
        (
          await owner.get<{ deliveries: { kind: string; url: string; error: string | null }[] }>(
            `/api/deliveries?item_id=${created.id}`,
          )
        ).body.deliveries,
      (list) => list.length > 0,
    );
    expect(deliveries).toEqual([
      expect.objectContaining({
        kind: 'telegram',
        error: null,
        url: `${telegram.url}/bot<token>/sendMessage`,
      }),
    ]);
  });

  it('gives a richer form a link to the item instead of buttons', async () => {
    const rich = { id: 'g', fields: [{ id: 'why', type: 'text', label: 'Why?', required: true }] };
    const { item: created, keyboard } = await posted(rich);
    expect(keyboard).toEqual([
      [{ text: 'Answer in Beckon', url: `http://localhost:5173/items/${created.id}` }],
    ]);
  });

  it('tells an unlinked account to link, links it by the deep link, then answers as that person once', async () => {
    const { item: created, keyboard } = await posted();
    const yes = keyboard[0]?.[0]?.callback_data ?? '';
    expect((await telegramUpdate(server, orgId, secret, callbackQuery(ALICE, yes))).status).toBe(200);
    expect((await item(created.id)).status).toBe('open');
    const told = telegram.of('answerCallbackQuery').at(-1);
    expect(String(told?.params.text)).toContain('http://localhost:5173/settings/telegram');

    const link = await owner.post<{ url: string; code: string }>('/api/telegram/links');
    expect(link.body.url).toBe(`https://t.me/beckon_test_bot?start=${link.body.code}`);
    expect((await linkTelegram(server, owner, orgId, secret, ALICE)).status).toBe(200);
    expect((await owner.get('/api/telegram/links/me')).body).toMatchObject({ linked: true });
    const links = await server.database.sql`
      select telegram_user_id, user_id from telegram_user_links where org_id = ${orgId}`;
    expect(links).toEqual([{ telegram_user_id: String(ALICE), user_id: ownerId }]);
    expect(telegram.of('sendMessage').at(-1)?.params).toMatchObject({
      chat_id: ALICE,
      text: 'Your account is linked: you can answer Beckon items here.',
    });

    const click = callbackQuery(ALICE, yes);
    expect((await telegramUpdate(server, orgId, secret, click)).status).toBe(200);
    expect(await item(created.id)).toMatchObject({
      status: 'answered',
      response: { ok: true },
      answered_by: { type: 'user', id: ownerId },
      answered_via: 'telegram',
    });
    // The same update again (a replay): ignored, nothing answered twice.
    const replay = await telegramUpdate(server, orgId, secret, click);
    expect(replay).toEqual({ status: 200, body: { ok: true, ignored: 'already handled' } });
    const audits = await server.database.sql`
      select 1 from audit_entries where item_id = ${created.id} and action = 'item.answer'`;
    expect(audits).toHaveLength(1);

    // The message is edited: who answered, where, and no keyboard any more.
    const edit = await telegram.waitForMention('editMessageText', 'Answered');
    expect(edit.params.chat_id).toBe(String(GROUP));
    expect(String(edit.params.text)).toContain('via telegram: Yes');
    expect(keyboardOf(edit.params)).toEqual([]);
  });

  it('posts an item assigned to a linked person to their private chat with the bot too', async () => {
    const assignees = [{ type: 'user', id: ownerId }];
    const created =
      // By an agent: the person who creates an item is not notified of it.
      (await agent.post<Item>('/api/items', { title: 'For you', channel_id: opsId, form: YES_NO, assignees }))
        .body;
    await eventually(
      async () => telegram.of('sendMessage').filter((c) => JSON.stringify(c.params).includes(created.id)),
      (sent) => sent.length === 2,
    );
    const chats = telegram
      .of('sendMessage')
      .filter((c) => JSON.stringify(c.params).includes(created.id))
      .map((c) => c.params.chat_id);
    expect(chats.sort()).toEqual([String(GROUP), String(ALICE)].sort());
  });

  it('does not link from a code Beckon did not make', async () => {
    const link = await owner.post<{ code: string }>('/api/telegram/links');
    const code = link.body.code;
    await telegramUpdate(server, orgId, secret, {
      update_id: 99_001,
      message: {
        message_id: 1,
        date: 0,
        chat: { id: MALLORY, type: 'private' },
        from: { id: MALLORY, is_bot: false, first_name: 'M' },
        text: `/start ${code.slice(0, -2)}xy`,
      },
    });
    const links = await server.database.sql`
      select 1 from telegram_user_links where org_id = ${orgId} and telegram_user_id = ${String(MALLORY)}`;
    expect(links).toHaveLength(0);
    expect(telegram.of('sendMessage').at(-1)?.params.text).toBe(
      'This code is not valid any more: make a new one in Beckon.',
    );
  });
});
