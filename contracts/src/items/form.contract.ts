/** The form an item asks people to fill in: its definition, validated when the item is created. */
import { z } from 'zod';
import { type FormField, MAX_FIELDS, ZFormFieldShape } from './form-fields';
import { valueProblem } from './form-values';

export type { FormField, FormFieldType } from './form-fields';

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
