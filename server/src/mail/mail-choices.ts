import type { Form } from '@beckon/contracts/items/form.contract';

/** One button of a mail: what it says and the answer it gives. */
export type MailChoice = { label: string; values: Record<string, unknown> };

/** More options than this do not fit a mail as buttons: the mail links to the item page. */
const MAX_BUTTONS = 8;

/**
 * The buttons of a form simple enough to answer from a mail (one field: a yes/no, a single
 * choice, or a checkbox), in order; null for any other form. The form is fixed at creation, so a
 * button's index names the same answer for as long as the item lives.
 */
export function mailChoices(form: Form | null): MailChoice[] | null {
  if (form?.fields.length !== 1) return null;
  const [field] = form.fields;
  if (!field) return null;
  switch (field.type) {
    case 'yesno':
      return [
        { label: field.yes_label ?? 'Yes', values: { [field.id]: true } },
        { label: field.no_label ?? 'No', values: { [field.id]: false } },
      ];
    case 'select':
    case 'radio':
      if (field.options.length > MAX_BUTTONS) return null;
      return field.options.map((option) => ({ label: option.label, values: { [field.id]: option.value } }));
    case 'checkbox':
      return [{ label: field.label, values: { [field.id]: true } }];
    default:
      return null;
  }
}

/**
 * The choices a message (mail, push, Slack) may answer in place: none for an item whose decision
 * needs a fresh verification (`require_reauth`), which is answered on its page only.
 */
export const inPlaceChoices = (item: { form: Form | null; require_reauth: unknown }): MailChoice[] | null =>
  item.require_reauth ? null : mailChoices(item.form);
