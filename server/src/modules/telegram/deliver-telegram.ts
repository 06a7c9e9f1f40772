import { GrammyError } from 'grammy';
import type { JobHelpers } from 'graphile-worker';
import type { Deps } from '../../deps';
import { JOB_TASKS } from '../../job-tasks';
import { itemPageUrl } from '../../mail/item-mail';
import { decisionOf, loadItem } from '../chat/decision';
import { nudgeText, reasonEvent } from '../chat/nudge';
import { recordPostedMessage } from '../chat/posted-message';
import { type CallFailure, type CallRef, recordedCall } from '../chat/recorded-call';
import { orgBot } from './connection.service';
import { telegramMessage } from './message';

/**
 * Telegram's refusals no retry changes (a chat the bot left or was blocked in, a message gone, a
 * revoked token: 400, 401, 403) end the job; a rate limit (429), its 5xx and the network are
 * tried again.
 */
function classify(error: unknown): CallFailure {
  if (error instanceof GrammyError) {
    const status = error.error_code;
    return { error: error.description, status, permanent: status !== 429 && status < 500 };
  }
  return { error: error instanceof Error ? error.message : String(error), status: null, permanent: false };
}

/** Telegram's answer to an edit that changes nothing: the message already says it. */
const unchanged = (error: unknown) =>
  error instanceof GrammyError && error.description.includes('message is not modified');

/** The method's URL as the delivery log shows it: never with the bot's token. */
const methodUrl = (deps: Deps, method: string) =>
  `${deps.telegram?.apiRoot ?? 'https://api.telegram.org'}/bot<token>/${method}`;

/**
 * `telegram_post_item`: posts an item to one Telegram chat and remembers the message, so later
 * changes edit it. Safe to run twice (a message already posted there is not posted again). A
 * change committed while the message was on its way is applied to it at once. A notification of
 * an item already in the chat (a reminder, an escalation) replies to that message with a nudge.
 */
export function postItemTask(deps: Deps) {
  return async (payload: unknown, helpers: JobHelpers) => {
    const job = JOB_TASKS.telegram_post_item.parse(payload);
    const bot = deps.telegram && (await orgBot(deps, deps.telegram, job.org_id));
    const item = bot && (await loadItem(deps, job.org_id, job.item_id));
    if (!bot || !item) return;
    const call: CallRef = {
      orgId: job.org_id,
      itemId: item.id,
      deliveryId: job.delivery_id,
      event: reasonEvent(job.reason),
      attempt: helpers.job.attempts,
    };
    const [posted] = await deps.sql<{ message_id: string }[]>`
      select message_id from telegram_messages
       where org_id = ${job.org_id} and item_id = ${item.id} and chat_id = ${job.chat_id}`;
    if (posted) {
      if (job.reason === 'created' || item.status !== 'open') return;
      const text = nudgeText(job.reason, item.title);
      const reply = { reply_parameters: { message_id: Number(posted.message_id) } };
      await recordedCall(
        deps,
        'telegram',
        methodUrl(deps, 'sendMessage'),
        call,
        () => bot.api.sendMessage(job.chat_id, text, reply),
        classify,
      );
      return;
    }
    const message = telegramMessage(item, itemPageUrl(deps.env, item.id), await decisionOf(deps, item));
    const sent = await recordedCall(
      deps,
      'telegram',
      methodUrl(deps, 'sendMessage'),
      call,
      () => bot.api.sendMessage(job.chat_id, message.text, message.other),
      classify,
    );
    if (!sent) return;
    await recordPostedMessage(
      deps,
      item,
      job.org_id,
      'telegram_update_item',
      (tx) => tx`
        insert into telegram_messages (item_id, org_id, chat_id, message_id)
        values (${item.id}, ${job.org_id}, ${job.chat_id}, ${String(sent.message_id)})
        on conflict do nothing`,
    );
  };
}

/** `telegram_update_item`: renders the item as it is now into each of its Telegram messages. */
export function updateItemTask(deps: Deps) {
  return async (payload: unknown, helpers: JobHelpers) => {
    const job = JOB_TASKS.telegram_update_item.parse(payload);
    const bot = deps.telegram && (await orgBot(deps, deps.telegram, job.org_id));
    const item = bot && (await loadItem(deps, job.org_id, job.item_id));
    if (!bot || !item) return;
    const messages = await deps.sql<{ chat_id: string; message_id: string }[]>`
      select chat_id, message_id from telegram_messages where item_id = ${item.id} and org_id = ${job.org_id}`;
    const message = telegramMessage(item, itemPageUrl(deps.env, item.id), await decisionOf(deps, item));
    const call: CallRef = {
      orgId: job.org_id,
      itemId: item.id,
      deliveryId: job.delivery_id,
      event: job.event,
      attempt: helpers.job.attempts,
    };
    for (const m of messages) {
      await recordedCall(
        deps,
        'telegram',
        methodUrl(deps, 'editMessageText'),
        call,
        () =>
          bot.api
            .editMessageText(m.chat_id, Number(m.message_id), message.text, message.other)
            .catch((error: unknown) => {
              if (!unchanged(error)) throw error;
              return true;
            }),
        classify,
      );
    }
  };
}
