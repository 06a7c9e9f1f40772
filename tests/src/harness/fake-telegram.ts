import http from 'node:http';

/** One Bot API call that reached the fake: the method, its parameters and the bot's token. */
export type TelegramCall = { method: string; params: Record<string, unknown>; token: string };

type Bot = { id: number; username: string; webhook: { url: string; secret: string } | null };

/**
 * Telegram's Bot API faked at the HTTP boundary: a local server answering the methods Beckon
 * calls (getMe, setWebhook, deleteWebhook, getChat, sendMessage, editMessageText,
 * answerCallbackQuery) at `/bot<token>/<method>` as Telegram does, so the server's real grammY
 * client runs (TELEGRAM_API_URL is its apiRoot). A token it does not know is a 401; a chat it
 * does not know a 400 "chat not found". Calls are kept for the tests to inspect.
 */
export async function startFakeTelegram() {
  const calls: TelegramCall[] = [];
  const bots = new Map<string, Bot>();
  const chats = new Map<string, { id: number; type: string; title?: string; first_name?: string }>();
  let messageId = 100;

  const ok = (result: unknown) => ({ status: 200, body: { ok: true, result } });
  const fail = (status: number, description: string) => ({
    status,
    body: { ok: false, error_code: status, description },
  });

  const answer = (bot: Bot | undefined, method: string, params: Record<string, unknown>) => {
    if (!bot) return fail(401, 'Unauthorized');
    const chat = chats.get(String(params.chat_id));
    switch (method) {
      case 'getMe':
        return ok({ id: bot.id, is_bot: true, first_name: bot.username, username: bot.username });
      case 'setWebhook':
        bot.webhook = { url: String(params.url), secret: String(params.secret_token ?? '') };
        return ok(true);
      case 'deleteWebhook':
        bot.webhook = null;
        return ok(true);
      case 'getChat':
        return chat ? ok(chat) : fail(400, 'Bad Request: chat not found');
      case 'sendMessage':
        if (!chat) return fail(400, 'Bad Request: chat not found');
        return ok({ message_id: ++messageId, date: 0, chat, text: params.text });
      case 'editMessageText':
        if (!chat) return fail(400, 'Bad Request: chat not found');
        return ok({ message_id: Number(params.message_id), date: 0, chat, text: params.text });
      case 'answerCallbackQuery':
        return ok(true);
      default:
        return fail(404, 'Not Found: method not found');
    }
  };

  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const match = /^\/bot([^/]+)\/(\w+)/.exec(request.url ?? '');
      const token = match?.[1] ?? '';
      const method = match?.[2] ?? '';
      const params = body ? (JSON.parse(body) as Record<string, unknown>) : {};
      calls.push({ method, params, token });
      const { status, body: out } = answer(bots.get(token), method, params);
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(out));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };

  const mentioning = (method: string, text: string) =>
    calls.filter((c) => c.method === method && JSON.stringify(c.params).includes(text));

  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    /** A bot Telegram knows by this token. */
    bot(token: string, id: number, username: string) {
      bots.set(token, { id, username, webhook: null });
    },
    webhookOf: (token: string) => bots.get(token)?.webhook ?? null,
    /** A chat the bots can see: a group (negative id) or a person's private chat (their id). */
    chat(id: number, chat: { type: string; title?: string; first_name?: string }) {
      chats.set(String(id), { id, ...chat });
    },
    of: (method: string) => calls.filter((c) => c.method === method),
    /** Waits for the last call of `method` mentioning `text` in its parameters. */
    async waitForMention(method: string, text: string, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (mentioning(method, text).length === 0) {
        if (Date.now() > deadline) throw new Error(`expected a ${method} call about ${text}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return mentioning(method, text).at(-1) as TelegramCall;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type FakeTelegram = Awaited<ReturnType<typeof startFakeTelegram>>;

/**
 * An update as Telegram delivers it to a webhook: JSON, with the secret token given to setWebhook
 * in `X-Telegram-Bot-Api-Secret-Token` (Telegram's only proof of origin).
 */
export async function deliverUpdate(url: string, secret: string | null, update: object) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(secret === null ? {} : { 'x-telegram-bot-api-secret-token': secret }),
    },
    body: JSON.stringify(update),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}
