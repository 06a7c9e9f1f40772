/** The fields a form may hold, one schema per type (their cross-key rules: form.contract.ts). */
import { z } from 'zod';

/** Limits not covered by individual field rules; they keep a single item's stored form bounded. */
export const MAX_FIELDS = 50;
const MAX_OPTIONS = 100;

const FIELD_ID = /^[A-Za-z0-9_.-]+$/;
export const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The messages of a value of the wrong kind (a field's default, or an answer). */
export const MESSAGES = {
  boolean: 'must be true or false',
  text: 'must be text',
  number: 'must be a number',
  date: 'must be a date (YYYY-MM-DD)',
  list: 'must be a list',
} as const;

/**
 * Keys that belong to one family of types. Every field schema starts from these as
 * "not allowed" and re-declares the ones it supports, so a misplaced key is reported at
 * its own path (`fields.2.options`) instead of as an anonymous unknown key on the field.
 */
const notAllowedOn = (types: string) => z.never({ error: `only allowed on ${types} fields` }).optional();
const typeSpecificKeys = {
  options: notAllowedOn('select, radio and multiselect'),
  yes_label: notAllowedOn('yesno'),
  no_label: notAllowedOn('yesno'),
  min_length: notAllowedOn('text and textarea'),
  max_length: notAllowedOn('text and textarea'),
  min: notAllowedOn('number'),
  max: notAllowedOn('number'),
};

const commonKeys = {
  ...typeSpecificKeys,
  id: z.string().min(1).max(64).regex(FIELD_ID, 'may only contain letters, digits, "_", "." and "-"'),
  label: z.string().min(1).max(500),
  required: z.boolean().optional(),
  placeholder: z.string().max(500).optional(),
  help: z.string().max(2000).optional(),
};

const ZOptions = z
  .array(z.strictObject({ value: z.string().min(1).max(200), label: z.string().min(1).max(500) }), {
    error: (issue) => (issue.input === undefined ? 'required' : 'must be a list of options'),
  })
  .min(1, 'must have at least one option')
  .max(MAX_OPTIONS, `must have at most ${MAX_OPTIONS} options`);

const ZLength = z.number().int().min(0).optional();

const ZYesNoField = z.strictObject({
  ...commonKeys,
  type: z.literal('yesno'),
  yes_label: z.string().min(1).max(100).optional(),
  no_label: z.string().min(1).max(100).optional(),
  default: z.boolean({ error: MESSAGES.boolean }).optional(),
});

const ZCheckboxField = z.strictObject({
  ...commonKeys,
  type: z.literal('checkbox'),
  default: z.boolean({ error: MESSAGES.boolean }).optional(),
});

const textKeys = {
  ...commonKeys,
  min_length: ZLength,
  max_length: ZLength,
  default: z.string({ error: MESSAGES.text }).optional(),
};
const ZTextField = z.strictObject({ ...textKeys, type: z.literal('text') });
const ZTextareaField = z.strictObject({ ...textKeys, type: z.literal('textarea') });

const ZNumberField = z.strictObject({
  ...commonKeys,
  type: z.literal('number'),
  min: z.number().optional(),
  max: z.number().optional(),
  default: z.number({ error: MESSAGES.number }).optional(),
});

const singleChoiceKeys = {
  ...commonKeys,
  options: ZOptions,
  default: z.string({ error: MESSAGES.text }).optional(),
};
const ZSelectField = z.strictObject({ ...singleChoiceKeys, type: z.literal('select') });
const ZRadioField = z.strictObject({ ...singleChoiceKeys, type: z.literal('radio') });

const ZMultiselectField = z.strictObject({
  ...commonKeys,
  type: z.literal('multiselect'),
  options: ZOptions,
  default: z.array(z.string(), { error: MESSAGES.list }).optional(),
});

const ZDateField = z.strictObject({
  ...commonKeys,
  type: z.literal('date'),
  default: z.string({ error: MESSAGES.date }).optional(),
});

// Shape only; the cross-key rules are added below, once FormField exists to type them.
export const ZFormFieldShape = z.discriminatedUnion('type', [
  ZYesNoField,
  ZCheckboxField,
  ZTextField,
  ZTextareaField,
  ZNumberField,
  ZSelectField,
  ZRadioField,
  ZMultiselectField,
  ZDateField,
]);

export type FormField = z.infer<typeof ZFormFieldShape>;
export type FormFieldType = FormField['type'];
