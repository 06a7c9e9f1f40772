import type { FormField } from '@beckon/contracts/items/form-fields';
import type { ItemView } from '@beckon/contracts/items/item.contract';

/** Slack's `mrkdwn` needs these three escaped; nothing else in a text is markup then. */
export const escapeText = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const plain = (text: string, max = 75) => ({
  type: 'plain_text' as const,
  text: clip(text, max),
  emoji: true,
});

/** The ids of what a click or a modal carries back to POST /webhooks/slack/interactions. */
export const ACTIONS = {
  /** A button that answers at once: its value is `{"item": id, "values": {...}}`. */
  answer: 'beckon.answer',
  /** Acknowledge an item without a form: its value is the item id. */
  ack: 'beckon.ack',
  /** Open the modal of a richer form: its value is the item id. */
  open: 'beckon.open',
  /** The link to the item's page (Slack reports the click too; nothing to do). */
  link: 'beckon.link',
  /** The modal's callback id; its private_metadata is the item id. */
  modal: 'beckon.modal',
} as const;

const LEVEL_MARK: Record<ItemView['level'], string> = {
  info: ':information_source:',
  success: ':white_check_mark:',
  warning: ':warning:',
  error: ':rotating_light:',
};

/** Choices that fit as buttons of one message (Slack allows 25 elements per actions block). */
const MAX_CHOICE_BUTTONS = 5;

type Button = {
  type: 'button';
  text: ReturnType<typeof plain>;
  action_id: string;
  value?: string;
  url?: string;
  style?: 'primary' | 'danger';
};

const answerButton = (
  itemId: string,
  field: FormField,
  value: unknown,
  label: string,
  index: number,
): Button => ({
  type: 'button',
  text: plain(label),
  action_id: `${ACTIONS.answer}.${index}`,
  value: JSON.stringify({ item: itemId, values: { [field.id]: value } }),
});

/**
 * The buttons of a simple form, answering with one click: one yes/no field (two buttons), one
 * choice among a few (a button each), or one checkbox (confirm). Null for a richer form.
 */
export function simpleFormButtons(item: ItemView): Button[] | null {
  const fields = item.form?.fields ?? [];
  const [field] = fields;
  if (fields.length !== 1 || !field) return null;
  switch (field.type) {
    case 'yesno':
      return [
        { ...answerButton(item.id, field, true, field.yes_label ?? 'Yes', 0), style: 'primary' },
        answerButton(item.id, field, false, field.no_label ?? 'No', 1),
      ];
    case 'checkbox':
      return [{ ...answerButton(item.id, field, true, field.label, 0), style: 'primary' }];
    case 'select':
    case 'radio':
      if (field.options.length > MAX_CHOICE_BUTTONS) return null;
      return field.options.map((option, index) =>
        answerButton(item.id, field, option.value, option.label, index),
      );
    default:
      return null;
  }
}

/** What the message says once the item is decided (or acknowledged): who, where, what. */
export type Decision = { by: string | null; summary: string };

function decisionLine(item: ItemView, decision: Decision): string {
  const by = decision.by ? ` by ${escapeText(decision.by)}` : '';
  const via = item.answered_via ? ` via ${item.answered_via}` : '';
  switch (item.status) {
    case 'answered':
      return `:ballot_box_with_check: Answered${by}${via}: ${escapeText(decision.summary)}`;
    case 'open':
      return `:eyes: Acknowledged${by}`;
    default:
      return `:no_entry_sign: ${item.status[0]?.toUpperCase()}${item.status.slice(1)}${by}`;
  }
}

/** The text of an answer, field by field, with the options' labels. */
export function answerSummary(item: ItemView): string {
  const response = item.response ?? {};
  return (item.form?.fields ?? [])
    .filter((field) => response[field.id] !== undefined)
    .map((field) => {
      const value = response[field.id];
      const label = (v: unknown) =>
        ('options' in field && field.options?.find((o) => o.value === v)?.label) || String(v);
      const shown =
        typeof value === 'boolean'
          ? field.type === 'yesno'
            ? value
              ? (field.yes_label ?? 'Yes')
              : (field.no_label ?? 'No')
            : value
              ? 'yes'
              : 'no'
          : Array.isArray(value)
            ? value.map(label).join(', ')
            : label(value);
      return (item.form?.fields.length ?? 0) > 1 ? `${field.label}: ${shown}` : shown;
    })
    .join('; ');
}

/**
 * The Block Kit message of an item: its title and text, then what can be done while it is open
 * (the form's buttons, "Answer…" for a richer form, "Acknowledge" without a form, only a link
 * for a decision that needs a fresh verification), or who
 * decided once it is not (no buttons: nobody answers twice).
 */
export function itemMessage(item: ItemView, pageUrl: string, decision: Decision | null) {
  const text = `${LEVEL_MARK[item.level]} *${escapeText(clip(item.title, 300))}*${
    item.message ? `\n${escapeText(clip(item.message, 2500))}` : ''
  }`;
  const blocks: object[] = [{ type: 'section', text: { type: 'mrkdwn', text } }];
  const link: Button = {
    type: 'button',
    text: plain('Open in Beckon'),
    action_id: ACTIONS.link,
    url: pageUrl,
  };
  const open = item.status === 'open';
  if (decision && (!open || item.acked_at)) {
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: decisionLine(item, decision) }] });
  }
  if (open && item.form && item.require_reauth) {
    // A decision that needs a fresh verification is answered on its page only.
    const answerThere: Button = { ...link, text: plain('Answer in Beckon'), style: 'primary' };
    blocks.push({ type: 'actions', block_id: `beckon:${item.id}`, elements: [answerThere] });
  } else if (open && item.form) {
    const buttons = simpleFormButtons(item) ?? [
      { type: 'button', text: plain('Answer…'), action_id: ACTIONS.open, value: item.id, style: 'primary' },
    ];
    blocks.push({ type: 'actions', block_id: `beckon:${item.id}`, elements: [...buttons, link] });
  } else if (open && !item.acked_at) {
    const ack: Button = {
      type: 'button',
      text: plain('Acknowledge'),
      action_id: ACTIONS.ack,
      value: item.id,
    };
    blocks.push({ type: 'actions', block_id: `beckon:${item.id}`, elements: [ack, link] });
  } else {
    blocks.push({ type: 'actions', block_id: `beckon:${item.id}`, elements: [link] });
  }
  // The notification text (and what screen readers and old clients show).
  return { text: clip(item.title, 300), blocks };
}
