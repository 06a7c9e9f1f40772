import { Description, Field, Label, Legend } from '@headlessui/react';
import type { ReactNode } from 'react';
import { controlClass, labelClass } from '../../../components/field';
import { answerSentence } from '../../../lib/field-messages';
import type { FormField } from '../../../lib/trpc';

/** What every field renderer gets: the field, its current value, its 422 message and a setter. */
export type FieldProps<Type extends FormField['type'] = FormField['type']> = {
  field: Extract<FormField, { type: Type }>;
  value: unknown;
  error: string | undefined;
  onChange: (value: unknown) => void;
};

export const boxClass =
  'group flex size-5 shrink-0 items-center justify-center rounded border border-gray-500 bg-white focus-ring data-checked:border-indigo-700 data-checked:bg-indigo-700';

/** The props a single control shares: invalid state (aria-invalid), required, and its look. */
export const controlProps = (field: FormField, error: string | undefined) => ({
  invalid: error !== undefined,
  'aria-required': field.required || undefined,
  className: controlClass,
});

/** The visual "required" star; assistive technologies get aria-required instead. */
export function RequiredMark({ field }: { field: FormField }) {
  return field.required ? (
    <span className="text-red-800" aria-hidden="true">
      {' '}
      *
    </span>
  ) : null;
}

/** The ids of a field's help and error texts (for aria-describedby inside a fieldset). */
export const noteIds = (field: FormField, error: string | undefined) =>
  [field.help && `field-${field.id}-help`, error && `field-${field.id}-error`].filter(Boolean).join(' ') ||
  undefined;

/**
 * A field's help text and its 422 message. Inside a Headless UI Field they are Descriptions (wired
 * to the control automatically); a fieldset has no such context, so there they are paragraphs the
 * group points to with aria-describedby (see noteIds).
 */
export function FieldShell({
  field,
  error,
  inFieldset = false,
  children,
}: {
  field: FormField;
  error: string | undefined;
  inFieldset?: boolean;
  children: ReactNode;
}) {
  const Note = inFieldset ? 'p' : Description;
  return (
    <>
      {children}
      {field.help && (
        <Note id={inFieldset ? `field-${field.id}-help` : undefined} className="mt-1 text-xs text-gray-700">
          {field.help}
        </Note>
      )}
      {error && (
        <Note
          id={inFieldset ? `field-${field.id}-error` : undefined}
          className="mt-1 text-sm font-medium text-red-800"
        >
          {answerSentence(field, error)}
        </Note>
      )}
    </>
  );
}

/** A group of controls (radio buttons, checkboxes) under the field's label as its legend. */
export function FieldsetLegend({ field }: { field: FormField }) {
  return (
    <Legend className={labelClass}>
      {field.label}
      <RequiredMark field={field} />
    </Legend>
  );
}

/** A single control with its label, help and error (select, textarea, text, number, date). */
export function LabeledField({
  field,
  error,
  children,
}: {
  field: FormField;
  error: string | undefined;
  children: ReactNode;
}) {
  return (
    <Field>
      <Label className={labelClass}>
        {field.label}
        <RequiredMark field={field} />
      </Label>
      <FieldShell field={field} error={error}>
        {children}
      </FieldShell>
    </Field>
  );
}

export function CheckMark() {
  return (
    <svg
      className="hidden size-4 stroke-white group-data-checked:block"
      viewBox="0 0 14 14"
      fill="none"
      aria-hidden="true"
    >
      <path d="M3 8L6 11L11 3.5" strokeWidth={2} strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
