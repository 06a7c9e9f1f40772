// Answers to a form: each value checked against its field (decisions.md, form validation).
import type { Form } from '@beckon/contracts/items/form.contract';
import { valueProblem } from '@beckon/contracts/items/form-values';

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
