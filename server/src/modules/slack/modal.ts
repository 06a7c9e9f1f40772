import type { FormField } from '@beckon/contracts/items/form-fields';
import type { ItemView } from '@beckon/contracts/items/item.contract';
import { ACTIONS } from './message-blocks';

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const plain = (text: string, max = 75) => ({
  type: 'plain_text' as const,
  text: clip(text, max),
  emoji: true,
});
const option = (value: string, label: string) => ({ text: plain(label), value });

/** Options by position: Slack takes values of at most 150 characters, a form's may be longer. */
const choices = (options: readonly { value: string; label: string }[]) =>
  options.map((o, index) => option(String(index), o.label));
const chosen = (options: readonly { value: string }[], index: string | undefined) =>
  index === undefined ? undefined : options[Number(index)]?.value;

/** Slack shows at most 10 radio buttons; more choices become a menu. */
const MAX_RADIO = 10;
const VALUE = 'value';

function element(field: FormField): object {
  switch (field.type) {
    case 'yesno':
      return {
        type: 'radio_buttons',
        options: [option('true', field.yes_label ?? 'Yes'), option('false', field.no_label ?? 'No')],
      };
    case 'checkbox':
      return { type: 'checkboxes', options: [option('true', field.label)] };
    case 'text':
    case 'textarea':
      return {
        type: 'plain_text_input',
        multiline: field.type === 'textarea',
        ...(field.min_length !== undefined ? { min_length: Math.min(field.min_length, 3000) } : {}),
        ...(field.max_length !== undefined
          ? { max_length: Math.min(Math.max(field.max_length, 1), 3000) }
          : {}),
      };
    case 'number':
      return {
        type: 'number_input',
        is_decimal_allowed: true,
        ...(field.min !== undefined ? { min_value: String(field.min) } : {}),
        ...(field.max !== undefined ? { max_value: String(field.max) } : {}),
      };
    case 'select':
    case 'radio': {
      const options = choices(field.options);
      return field.type === 'radio' && options.length <= MAX_RADIO
        ? { type: 'radio_buttons', options }
        : { type: 'static_select', options };
    }
    case 'multiselect':
      return { type: 'multi_static_select', options: choices(field.options) };
    case 'date':
      return { type: 'datepicker' };
  }
}

/** The modal of a richer form (views.open): one input block per field, the item in its metadata. */
export function formModal(item: ItemView) {
  const fields = item.form?.fields ?? [];
  return {
    type: 'modal' as const,
    callback_id: ACTIONS.modal,
    private_metadata: item.id,
    title: plain(item.title, 24),
    submit: plain('Answer'),
    close: plain('Cancel'),
    blocks: fields.map((field) => ({
      type: 'input',
      block_id: field.id,
      optional: !field.required,
      label: plain(field.label, 2000),
      ...(field.help ? { hint: plain(field.help, 2000) } : {}),
      element: { ...element(field), action_id: VALUE },
    })),
  };
}

type StateValue = {
  type?: string;
  value?: string | null;
  selected_option?: { value?: string } | null;
  selected_options?: { value?: string }[];
  selected_date?: string | null;
};

/** The answer a submitted modal holds, field by field (an empty input is left out). */
export function modalValues(
  item: ItemView,
  state: Record<string, Record<string, StateValue>>,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const field of item.form?.fields ?? []) {
    const input = state[field.id]?.[VALUE];
    if (!input) continue;
    const value = fieldValue(field, input);
    if (value !== undefined) values[field.id] = value;
  }
  return values;
}

function fieldValue(field: FormField, input: StateValue): unknown {
  switch (field.type) {
    case 'yesno': {
      const chosen = input.selected_option?.value;
      return chosen === undefined ? undefined : chosen === 'true';
    }
    case 'checkbox':
      return (input.selected_options ?? []).length > 0;
    case 'number':
      return input.value ? Number(input.value) : undefined;
    case 'select':
    case 'radio':
      return chosen(field.options, input.selected_option?.value);
    case 'multiselect':
      return (input.selected_options ?? []).flatMap((o) => chosen(field.options, o.value) ?? []);
    case 'date':
      return input.selected_date ?? undefined;
    default:
      return input.value || undefined;
  }
}
