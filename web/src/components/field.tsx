import { Field, Input, Label } from '@headlessui/react';
import { fieldSentence } from '../lib/field-messages';

/** A text input's classes: full width, focus ring, red border while invalid. */
export const controlClass =
  'mt-1 block w-full rounded-md border border-gray-400 bg-white px-3 py-2 text-sm text-gray-900 focus-ring data-invalid:border-red-700';

export const labelClass = 'block text-sm font-medium text-gray-900';

/** The API's message for one field (`fields.<name>` of a 400 or 422), as a sentence under its input. */
export function FieldError({ message, label }: { message: string | undefined; label: string }) {
  return message ? (
    <p className="mt-1 text-sm font-medium text-red-800">{fieldSentence(label, message)}</p>
  ) : null;
}

/** A section of a page: white, bordered, spaced. */
export const cardClass = 'rounded-lg border border-gray-200 bg-white p-4 shadow-xs space-y-4';

/** A labelled text input with the API's message for it (`fields.<name>` of a 400 or 422). */
export function TextField({
  label,
  value,
  onChange,
  error,
  type = 'text',
  placeholder,
  autoFocus,
  min,
  max,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string | undefined;
  type?: 'text' | 'url' | 'time' | 'number' | 'datetime-local';
  placeholder?: string;
  autoFocus?: boolean;
  min?: number;
  max?: number;
}) {
  return (
    <Field>
      <Label className={labelClass}>{label}</Label>
      <Input
        type={type}
        value={value}
        placeholder={placeholder}
        autoFocus={autoFocus}
        min={min}
        max={max}
        onChange={(event) => onChange(event.target.value)}
        invalid={error !== undefined}
        className={controlClass}
      />
      <FieldError message={error} label={label} />
    </Field>
  );
}
