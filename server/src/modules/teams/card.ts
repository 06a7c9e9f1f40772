import type { ItemView } from '@beckon/contracts/items/item.contract';
import { inPlaceChoices } from '../../mail/mail-choices';
import { actionId } from '../chat/answer-as-linked';
import { type Decision, decisionLine } from '../chat/decision';

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The content type of an Adaptive Card, as an attachment and as an invoke's answer. */
export const CARD_TYPE = 'application/vnd.microsoft.card.adaptive';
/** The verbs of the card's `Action.Execute`s (universal actions): answer it, or show it as it is now. */
export const ANSWER_VERB = 'answer';
export const REFRESH_VERB = 'refresh';

const LEVEL_COLOR: Record<ItemView['level'], string> = {
  info: 'Accent',
  success: 'Good',
  warning: 'Warning',
  error: 'Attention',
};

/**
 * What can be done from the card while the item is open: an `Action.Execute` per choice of a
 * simple form (yes/no, one choice), "Acknowledge" without a form, and the item's page for a
 * richer form (answered there, after signing in). Nothing once it is decided.
 */
function actions(item: ItemView, pageUrl: string): object[] {
  const open = { type: 'Action.OpenUrl', title: 'Open in Beckon', url: pageUrl };
  if (item.status !== 'open') return [open];
  const execute = (title: string, choice: number | 'ack') => ({
    type: 'Action.Execute',
    title: clip(title, 80),
    verb: ANSWER_VERB,
    data: { action: actionId({ itemId: item.id, choice }) },
  });
  if (!item.form) return item.acked_at ? [open] : [execute('Acknowledge', 'ack'), open];
  const choices = inPlaceChoices(item);
  if (!choices) return [{ ...open, title: 'Answer in Beckon' }];
  return choices.map((choice, index) => execute(choice.label, index));
}

/**
 * The Adaptive Card of an item (1.4, for universal actions): its title and text, who decided once
 * it is not open, and `note` (what happened to the person who just acted, in their copy only).
 * `refresh` has Teams ask Beckon for the card as it is now whenever someone views it, so a card
 * answered elsewhere never offers stale buttons.
 */
export function itemCard(item: ItemView, pageUrl: string, decision: Decision, note?: string) {
  const line = decisionLine(item, decision);
  const body: object[] = [
    {
      type: 'TextBlock',
      text: clip(item.title, 300),
      weight: 'Bolder',
      size: 'Medium',
      color: LEVEL_COLOR[item.level],
      wrap: true,
    },
  ];
  if (item.message) body.push({ type: 'TextBlock', text: clip(item.message, 3000), wrap: true });
  if (line) body.push({ type: 'TextBlock', text: clip(line, 500), isSubtle: true, wrap: true });
  if (note) body.push({ type: 'TextBlock', text: clip(note, 500), weight: 'Bolder', wrap: true });
  return {
    type: 'AdaptiveCard',
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    version: '1.4',
    refresh: { action: { type: 'Action.Execute', verb: REFRESH_VERB, data: { item: item.id } } },
    body,
    actions: actions(item, pageUrl),
  };
}

/** The activity that carries a card: posted to a conversation, or put in place of an earlier one. */
export const cardActivity = (card: object) => ({
  type: 'message',
  attachments: [{ contentType: CARD_TYPE, content: card }],
});
