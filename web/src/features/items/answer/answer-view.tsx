import type { Form, FormField } from '../../../lib/trpc';

/** A recorded value in words: the option's label, Yes/No, or the text itself. */
export function shown(field: FormField, value: unknown): string {
  if (value === undefined || value === null) return '—';
  if (field.type === 'yesno') return value ? (field.yes_label ?? 'Yes') : (field.no_label ?? 'No');
  if (field.type === 'checkbox') return value ? 'Checked' : 'Not checked';
  if (field.type === 'select' || field.type === 'radio')
    return field.options.find((o) => o.value === value)?.label ?? String(value);
  if (field.type === 'multiselect' && Array.isArray(value))
    return value.map((v) => field.options.find((o) => o.value === v)?.label ?? String(v)).join(', ') || '—';
  return String(value);
}

/** A recorded answer, read-only, with the form's labels. */
export function AnswerView({ form, response }: { form: Form; response: Record<string, unknown> }) {
  return (
    <dl className="divide-y divide-gray-200 rounded-md border border-gray-200">
      {form.fields.map((field) => (
        <div key={field.id} className="grid gap-1 px-3 py-2 sm:grid-cols-3">
          <dt className="text-sm font-medium text-gray-800">{field.label}</dt>
          <dd className="text-sm whitespace-pre-wrap text-gray-900 sm:col-span-2">
            {shown(field, response[field.id])}
          </dd>
        </div>
      ))}
    </dl>
  );
}
