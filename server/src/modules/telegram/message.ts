import type { ItemView } from '@beckon/contracts/items/item.contract';
import type { InlineKeyboardButton } from 'grammy/types';
import { inPlaceChoices } from '../../mail/mail-choices';
import { actionId } from '../chat/answer-as-linked';
import { type Decision, decisionLine } from '../chat/decision';

/** Telegram's HTML parse mode needs these three escaped; nothing else in a text is markup then. */
const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

const LEVEL_MARK: Record<ItemView['level'], string> = {
  info: 'ℹ️',
  success: '✅',
  warning: '⚠️',
  error: '🚨',
};

/**
 * What can be done from the message while the item is open: a button per choice of a simple form
 * (yes/no, a few options, a checkbox), "Acknowledge" without a form, and the item's page for a
 * richer form (answered there, after signing in). Nothing once it is decided.
 */
function keyboard(item: ItemView, pageUrl: string): InlineKeyboardButton[][] {
  if (item.status !== 'open') return [];
  if (!item.form) {
    return item.acked_at
      ? []
      : [[{ text: 'Acknowledge', callback_data: actionId({ itemId: item.id, choice: 'ack' }) }]];
  }
  const choices = inPlaceChoices(item);
  if (!choices) return [[{ text: 'Answer in Beckon', url: pageUrl }]];
  return choices.map((choice, index) => [
    { text: clip(choice.label, 64), callback_data: actionId({ itemId: item.id, choice: index }) },
  ]);
}

/**
 * The Telegram message of an item (HTML parse mode): its title and text, then who decided once it
 * is not open; its inline keyboard answers while it is open. Within Telegram's 4,096 characters.
 */
export function telegramMessage(item: ItemView, pageUrl: string, decision: Decision) {
  const line = decisionLine(item, decision);
  const text = [
    `${LEVEL_MARK[item.level]} <b>${escapeHtml(clip(item.title, 300))}</b>`,
    item.message ? escapeHtml(clip(item.message, 3000)) : null,
    line ? `<i>${escapeHtml(clip(line, 500))}</i>` : null,
  ]
    .filter(Boolean)
    .join('\n\n');
  return {
    text,
    other: {
      parse_mode: 'HTML' as const,
      link_preview_options: { is_disabled: true },
      reply_markup: { inline_keyboard: keyboard(item, pageUrl) },
    },
  };
}
