import type { FormField } from './trpc';

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const ended = (text: string) => (/[.!?…]$/.test(text) ? text : `${text}.`);

/** The API's words as a sentence: "already answered" → "Already answered." */
export const asSentence = (text: string) => ended(capitalized(text.trim()));

/** The API's ways of saying a value is missing: the form's "required", zod's empty string or absence. */
const isMissing = (message: string) =>
  /^required$/i.test(message) || /received undefined$/.test(message) || />=1 characters?$/.test(message);

/**
 * A field's message from the API (`fields.<name>` of a 400 or 422) as a sentence to show beside
 * it: "required" → "Agent name is required.", "must be at most 10" → "Replicas must be at most
 * 10.", zod's "Too big: expected string to have <=100 characters" → "Label must be at most 100
 * characters."; anything else capitalized and ended with a full stop.
 */
export function fieldSentence(label: string, message: string): string {
  const text = message.trim();
  if (isMissing(text)) return `${label} is required.`;
  const bound = /^Too (big|small): expected \w+ to (?:have|be) ([<>]=?)\s?(\d+)(?: (\w+))?$/.exec(text);
  if (bound) {
    const [, , comparison = '', limit = '', unit] = bound;
    const side = comparison.startsWith('<') ? 'at most' : 'at least';
    return `${label} must be ${side} ${limit}${unit ? ` ${unit}` : ''}.`;
  }
  return ended(/^(must|is|should|cannot|only)\b/.test(text) ? `${label} ${text}` : capitalized(text));
}

/** A missing answer, said for the kind of field it is: "Choose “Ship” or “Hold”." */
function missingAnswer(field: FormField): string {
  const label = `“${field.label}”`;
  switch (field.type) {
    case 'yesno':
      return `Choose “${field.yes_label ?? 'Yes'}” or “${field.no_label ?? 'No'}”.`;
    case 'select':
    case 'radio':
      return `Choose an answer to ${label}.`;
    case 'multiselect':
      return `Choose at least one option for ${label}.`;
    case 'checkbox':
      return `Tick ${label} to go on.`;
    case 'date':
      return `Pick a date for ${label}.`;
    case 'number':
      return `Enter a number for ${label}.`;
    default:
      return `Fill in ${label}: it is required.`;
  }
}

/** The 422 message of one field of an item's form, as a sentence beside that field. */
export const answerSentence = (field: FormField, message: string) =>
  isMissing(message.trim()) ? missingAnswer(field) : fieldSentence(`“${field.label}”`, message);
