import type { ItemView } from '@beckon/contracts/items/item.contract';
import { inPlaceChoices } from '../../mail/mail-choices';
import { actionId } from '../chat/answer-as-linked';
import { type Decision, decisionLine } from '../chat/decision';

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Discord's component types and button styles (message components reference). */
const ACTION_ROW = 1;
const BUTTON = 2;
const STRING_SELECT = 3;
const PRIMARY = 1;
const SECONDARY = 2;
const LINK = 5;

/** The custom_id prefix of a choice menu: the chosen option's value is the action's id. */
export const SELECT_PREFIX = 's:';

/** A message row holds five buttons; more choices go into one menu. */
const MAX_BUTTONS = 5;

const LEVEL_COLOR: Record<ItemView['level'], number> = {
  info: 0x3b82f6,
  success: 0x22c55e,
  warning: 0xf59e0b,
  error: 0xef4444,
};

/**
 * What can be done from the message while the item is open: a button per choice of a simple form
 * (a menu past five), "Acknowledge" without a form, and the item's page for a richer form.
 * Nothing once it is decided.
 */
function components(item: ItemView, pageUrl: string): object[] {
  if (item.status !== 'open') return [];
  if (!item.form) {
    if (item.acked_at) return [];
    const ack = {
      type: BUTTON,
      style: PRIMARY,
      label: 'Acknowledge',
      custom_id: actionId({ itemId: item.id, choice: 'ack' }),
    };
    return [{ type: ACTION_ROW, components: [ack] }];
  }
  const choices = inPlaceChoices(item);
  if (!choices) {
    const link = { type: BUTTON, style: LINK, label: 'Answer in Beckon', url: pageUrl };
    return [{ type: ACTION_ROW, components: [link] }];
  }
  if (choices.length > MAX_BUTTONS) {
    const options = choices.map((choice, index) => ({
      label: clip(choice.label, 100),
      value: actionId({ itemId: item.id, choice: index }),
    }));
    const menu = {
      type: STRING_SELECT,
      custom_id: `${SELECT_PREFIX}${item.id}`,
      options,
      placeholder: 'Answer…',
    };
    return [{ type: ACTION_ROW, components: [menu] }];
  }
  const buttons = choices.map((choice, index) => ({
    type: BUTTON,
    style: index === 0 ? PRIMARY : SECONDARY,
    label: clip(choice.label, 80),
    custom_id: actionId({ itemId: item.id, choice: index }),
  }));
  return [{ type: ACTION_ROW, components: buttons }];
}

/**
 * The Discord message of an item: an embed with its title and text (and who decided once it is
 * not open), and its components while it is open. No mentions are ever parsed from its text.
 */
export function discordMessage(item: ItemView, pageUrl: string, decision: Decision) {
  const line = decisionLine(item, decision);
  const embed = {
    title: clip(item.title, 256),
    url: pageUrl,
    color: LEVEL_COLOR[item.level],
    ...(item.message ? { description: clip(item.message, 4000) } : {}),
    ...(line ? { fields: [{ name: 'Decision', value: clip(line, 1024) }] } : {}),
  };
  return { embeds: [embed], components: components(item, pageUrl), allowed_mentions: { parse: [] } };
}
