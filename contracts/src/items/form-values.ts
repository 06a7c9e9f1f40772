// A value against its field: an answer's, or a field's own default.
import { DATE, type FormField, MESSAGES } from './form-fields';

/** Why `value` is not acceptable for `field`, or null when it is. Presence is checked by the caller. */
export function valueProblem(field: FormField, value: unknown): string | null {
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
