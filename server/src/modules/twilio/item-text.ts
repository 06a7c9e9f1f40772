import type { ItemView } from '@beckon/contracts/items/item.contract';
import { type MailChoice, mailChoices } from '../../mail/mail-choices';

/** What a reply can answer: the choices of a simple form, or acknowledging an item without one. */
export type TextChoice = {
  label: string;
  answer: { action: 'answer'; values: Record<string, unknown> } | { action: 'ack' };
};

type TextedItem = Pick<ItemView, 'id' | 'title' | 'message' | 'form' | 'status' | 'require_reauth'>;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * The numbered menu of an item: its simple form's choices, Acknowledge without a form, else null
 * (a richer form, or one whose answer needs a fresh verification, which a text cannot give).
 */
export function textChoices(item: Pick<ItemView, 'form' | 'require_reauth'>): TextChoice[] | null {
  if (!item.form) return [{ label: 'Acknowledge', answer: { action: 'ack' } }];
  if (item.require_reauth) return null;
  return (
    mailChoices(item.form)?.map((choice: MailChoice) => ({
      label: choice.label,
      answer: { action: 'answer' as const, values: choice.values },
    })) ?? null
  );
}

export const menuLines = (choices: TextChoice[]) => choices.map((c, i) => `${i + 1} ${c.label}`).join('\n');

/**
 * The item as one short text: its reference, title and the start of its message, then the
 * numbered menu and how to reply, or the link to its page for a richer form.
 */
export function itemText(item: TextedItem, ref: number, pageUrl: string): string {
  const head = `Beckon #${ref}: ${clip(item.title, 120)}`;
  const body = item.message ? `\n${clip(item.message, 240)}` : '';
  const choices = textChoices(item);
  if (!choices) return `${head}${body}\nAnswer here: ${pageUrl}`;
  return `${head}${body}\n${menuLines(choices)}\nReply with a number or the answer (#${ref} 1 if several are open).`;
}

/** The menu again, for a reply that named none of its choices. */
export const menuAgain = (ref: number, title: string, choices: TextChoice[]) =>
  `Beckon #${ref}: ${clip(title, 120)}\nReply with one of:\n${menuLines(choices)}`;

/** Lower case, accents and surrounding punctuation gone, spaces single: how replies compare. */
export const normalize = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[\s"'«(]+|[\s"'».!?)]+$/g, '');

const YES = new Set(['yes', 'y', 'ok', 'oui', 'si', 'ja', 'sim']);
const NO = new Set(['no', 'n', 'non', 'nein', 'nao']);

/** Words that stop every message (the carriers' and Twilio's opt-out set), and that resume them. */
const OPT_OUT = new Set(['stop', 'stopall', 'unsubscribe', 'cancel', 'end', 'quit', 'optout', 'revoke']);
const OPT_IN = new Set(['start', 'unstop', 'optin']);

export type Keyword = 'opt_out' | 'opt_in' | null;
export function keyword(text: string): Keyword {
  const word = normalize(text);
  if (OPT_OUT.has(word)) return 'opt_out';
  if (OPT_IN.has(word)) return 'opt_in';
  return null;
}

/**
 * Which item a reply names and what it says: `#3 yes` or `3 yes` name the item sent as #3; any
 * other reply is for the latest open item. A reply that is itself one of the latest item's
 * choices (a label starting with a number) is read as that choice first (by the caller).
 */
export function splitReply(text: string): { ref: number | null; answer: string } {
  const normalized = normalize(text);
  const match = /^#?(\d{1,6})[\s:,.-]+(.+)$/.exec(normalized);
  if (match?.[1] && match[2]) return { ref: Number(match[1]), answer: normalize(match[2]) };
  return { ref: null, answer: normalize(normalized.replace(/^#/, '')) };
}

/**
 * The choice a reply names: its number, its label (case and accents aside), or for a yes/no
 * form a yes or a no word. Null when it names none, or more than one.
 */
export function matchChoice(
  answer: string,
  choices: TextChoice[],
  form: ItemView['form'],
): TextChoice | null {
  const text = normalize(answer);
  if (/^\d+$/.test(text)) return choices[Number(text) - 1] ?? null;
  const byLabel = choices.filter((choice) => normalize(choice.label) === text);
  if (byLabel.length === 1) return byLabel[0] ?? null;
  if (byLabel.length > 1) return null;
  const yesNo = form?.fields.length === 1 && form.fields[0]?.type === 'yesno';
  if (yesNo && YES.has(text)) return choices[0] ?? null;
  if (yesNo && NO.has(text)) return choices[1] ?? null;
  if (!form && YES.has(text)) return choices[0] ?? null;
  return null;
}
