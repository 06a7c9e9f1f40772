import { z } from 'zod';

/** Limits not covered by individual field rules; they keep a single item's stored form bounded. */
const MAX_FIELDS = 50;
const MAX_OPTIONS = 100;

const FIELD_ID = /^[A-Za-z0-9_.-]+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

const MESSAGES = {
  boolean: 'must be true or false',
  text: 'must be text',
  number: 'must be a number',
  date: 'must be a date (YYYY-MM-DD)',
  list: 'must be a list',
} as const;

// --- Definition schema -------------------------------------------------------

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
const ZFormFieldShape = z.discriminatedUnion('type', [
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

type Problem = { path: (string | number)[]; message: string };

/** Rules that relate several keys of one field, with paths relative to the field. */
function fieldProblems(field: FormField): Problem[] {
  const problems: Problem[] = [];
  if (field.type === 'text' || field.type === 'textarea') {
    if (isInverted(field.min_length, field.max_length)) {
      problems.push({ path: ['min_length'], message: 'must not be greater than max_length' });
    }
  }
  if (field.type === 'number' && isInverted(field.min, field.max)) {
    problems.push({ path: ['min'], message: 'must not be greater than max' });
  }
  if (field.type === 'select' || field.type === 'radio' || field.type === 'multiselect') {
    problems.push(...duplicateOptionProblems(field.options));
  }
  // A default that breaks the field's own constraints would be pre-filled and then refused.
  if (field.default !== undefined) {
    const message = valueProblem(field, field.default);
    if (message) problems.push({ path: ['default'], message });
  }
  return problems;
}

function isInverted(low: number | undefined, high: number | undefined): boolean {
  return low !== undefined && high !== undefined && low > high;
}

function duplicateOptionProblems(options: readonly { value: string }[]): Problem[] {
  const seen = new Set<string>();
  const problems: Problem[] = [];
  options.forEach((option, index) => {
    if (seen.has(option.value)) {
      problems.push({
        path: ['options', index, 'value'],
        message: `duplicate option value "${option.value}"`,
      });
    }
    seen.add(option.value);
  });
  return problems;
}

function duplicateIdProblems(fields: readonly FormField[]): Problem[] {
  const seen = new Set<string>();
  const problems: Problem[] = [];
  fields.forEach((field, index) => {
    if (seen.has(field.id)) {
      problems.push({ path: ['fields', index, 'id'], message: `duplicate field id "${field.id}"` });
    }
    seen.add(field.id);
  });
  return problems;
}

const ZFormField = ZFormFieldShape.superRefine((field, ctx) => {
  for (const { path, message } of fieldProblems(field)) ctx.addIssue({ code: 'custom', path, message });
});

/** The form an agent attaches to an item; `ZForm.safeParse` is the complete check. */
export const ZForm = z
  .strictObject({
    id: z.string().min(1).max(200),
    fields: z
      .array(ZFormField)
      .min(1, 'must have at least one field')
      .max(MAX_FIELDS, `must have at most ${MAX_FIELDS} fields`),
  })
  .superRefine((form, ctx) => {
    for (const { path, message } of duplicateIdProblems(form.fields)) {
      ctx.addIssue({ code: 'custom', path, message });
    }
  });

export type Form = z.infer<typeof ZForm>;

// --- Values ------------------------------------------------------------------

/** Why `value` is not acceptable for `field`, or null when it is. Presence is checked by the caller. */
function valueProblem(field: FormField, value: unknown): string | null {
  switch (field.type) {
    case 'yesno':
    case 'checkbox':
      return typeof value === 'boolean' ? null : MESSAGES.boolean;
    case 'text':
    case 'textarea':
      return textProblem(field, value);
    case 'number':
      return numberProblem(field, value);
    case 'select':
    case 'radio':
      return choiceProblem(field.options, value);
    case 'multiselect':
      return choicesProblem(field.options, value);
    case 'date':
      return isCalendarDate(value) ? null : MESSAGES.date;
  }
}

type TextField = Extract<FormField, { type: 'text' | 'textarea' }>;

function textProblem(field: TextField, value: unknown): string | null {
  if (typeof value !== 'string') return MESSAGES.text;
  if (field.type === 'text' && /[\r\n]/.test(value)) return 'must be a single line';
  // Count code points, not UTF-16 units, so an emoji is one character as people see it.
  const length = [...value].length;
  if (field.min_length !== undefined && length < field.min_length) {
    return `must be at least ${field.min_length} characters`;
  }
  if (field.max_length !== undefined && length > field.max_length) {
    return `must be at most ${field.max_length} characters`;
  }
  return null;
}

function numberProblem(field: Extract<FormField, { type: 'number' }>, value: unknown): string | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return MESSAGES.number;
  if (field.min !== undefined && value < field.min) return `must be at least ${field.min}`;
  if (field.max !== undefined && value > field.max) return `must be at most ${field.max}`;
  return null;
}

type Option = { value: string };

function choiceProblem(options: readonly Option[], value: unknown): string | null {
  const allowed = options.map((o) => o.value);
  return typeof value === 'string' && allowed.includes(value)
    ? null
    : `must be one of: ${allowed.join(', ')}`;
}

function choicesProblem(options: readonly Option[], value: unknown): string | null {
  if (!Array.isArray(value)) return MESSAGES.list;
  const allowed = options.map((o) => o.value);
  if (!value.every((v) => typeof v === 'string' && allowed.includes(v))) {
    return `each choice must be one of: ${allowed.join(', ')}`;
  }
  if (new Set(value).size !== value.length) return 'must not repeat a choice';
  return null;
}

function isCalendarDate(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

// --- Answers -----------------------------------------------------------------

export type AnswerResult =
  | { ok: true; values: Record<string, unknown> }
  | { ok: false; fields: Record<string, string> };

/** Blank inputs mean "not answered"; `false` is a real answer for yes/no and checkboxes. */
function isBlank(value: unknown): boolean {
  return (
    value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Checks a person's answer against the form. Returns only known, answered fields;
 * defaults are a hint for the UI and are never filled in here.
 */
export function validateAnswer(form: Form, values: unknown): AnswerResult {
  if (!isPlainObject(values)) return { ok: false, fields: { values: 'must be an object' } };

  const known = new Set(form.fields.map((f) => f.id));
  const errors: [string, string][] = Object.keys(values)
    .filter((key) => !known.has(key))
    .map((key) => [key, 'unknown field']);
  const accepted: [string, unknown][] = [];

  for (const field of form.fields) {
    const value = Object.hasOwn(values, field.id) ? values[field.id] : undefined;
    if (isBlank(value)) {
      if (field.required) errors.push([field.id, 'required']);
      continue;
    }
    const problem = valueProblem(field, value);
    if (problem) errors.push([field.id, problem]);
    else accepted.push([field.id, value]);
  }

  // fromEntries defines own properties, so an id like "__proto__" cannot touch the prototype.
  if (errors.length > 0) return { ok: false, fields: Object.fromEntries(errors) };
  return { ok: true, values: Object.fromEntries(accepted) };
}
