import type { Update } from 'grammy/types';
import type { Deps } from '../../deps';
import { actAsLinked, parseActionId } from '../chat/answer-as-linked';
import { linkAccount } from '../chat/link-codes';
import { orgBot } from './connection.service';
import type { TelegramConfig } from './telegram-config';

const START = /^\/start(?:@\w+)?\s+([A-Za-z0-9_-]{16,64})$/;

/**
 * One verified update of an organization's bot: `/start <code>` in a private chat links the
 * sender's account (chat/link-codes.ts); a click on a message's button answers the item as the
 * person the clicking account is linked to, and Telegram shows what happened as the click's
 * answer. Anything else is ignored.
 */
export async function handleUpdate(deps: Deps, config: TelegramConfig, orgId: string, update: Update) {
  const bot = await orgBot(deps, config, orgId);
  if (!bot) return;
  const message = update.message;
  const start = message?.chat.type === 'private' && message.from ? START.exec(message.text ?? '') : null;
  if (message?.from && start?.[1]) {
    const reply = await linkAccount(deps, 'telegram', orgId, String(message.from.id), start[1]);
    await bot.api
      .sendMessage(message.chat.id, reply)
      .catch((error: unknown) => deps.log.warn({ err: error }, 'telegram reply failed'));
    return;
  }
  const query = update.callback_query;
  if (!query) return;
  const action = parseActionId(query.data);
  const reply = action
    ? await actAsLinked(deps, 'telegram', orgId, String(query.from.id), action)
    : 'This button does nothing any more.';
  await bot.api
    .answerCallbackQuery(query.id, { text: reply.slice(0, 200), show_alert: true })
    .catch((error: unknown) => deps.log.warn({ err: error }, 'telegram callback answer failed'));
}
