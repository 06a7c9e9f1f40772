import {
  Checkbox,
  Description,
  Field,
  Fieldset,
  Input,
  Label,
  Legend,
  Radio,
  RadioGroup,
  Select,
  Textarea,
} from '@headlessui/react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useState } from 'react';
import { Button } from '../../components/button';
import { errorBody } from '../../lib/errors';
import { appClient, type Form, type FormField, type Item } from '../../lib/trpc';
import { applyItem } from '../items/cache';

type Values = Record<string, unknown>;

const control =
  'mt-1 block w-full rounded-md border bg-white px-3 py-2 text-sm text-gray-900 focus-ring data-invalid:border-red-700 border-gray-400';

const initialValues = (form: Form): Values =>
  Object.fromEntries(
    form.fields.flatMap((field) => (field.default === undefined ? [] : [[field.id, field.default]])),
  );

/** What is sent: blank text is "not answered" (the server says whether that is allowed). */
function toAnswer(form: Form, values: Values): Values {
  const answer: Values = {};
  for (const field of form.fields) {
    const value = values[field.id];
    if (field.type === 'checkbox') answer[field.id] = value === true;
    else if (value === undefined || value === '') continue;
    else if (field.type === 'number') answer[field.id] = Number.isNaN(Number(value)) ? value : Number(value);
    else answer[field.id] = value;
  }
  return answer;
}

/** The ids of a field's help and error texts (for aria-describedby inside a fieldset). */
const noteIds = (field: FormField, error: string | undefined) =>
  [field.help && `field-${field.id}-help`, error && `field-${field.id}-error`].filter(Boolean).join(' ') ||
  undefined;

/**
 * A field's help text and its 422 message. Inside a Headless UI Field they are Descriptions (wired
 * to the control automatically); a fieldset has no such context, so there they are paragraphs the
 * group points to with aria-describedby (see noteIds).
 */
function FieldShell({
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
          <span className="sr-only">{field.label}: </span>
          {error}
        </Note>
      )}
    </>
  );
}

const labelClass = 'block text-sm font-medium text-gray-900';
const required = (field: FormField) =>
  field.required ? (
    <span className="text-red-800" aria-hidden="true">
      {' '}
      *
    </span>
  ) : null;

function ChoiceOption({ value, label }: { value: string; label: string }) {
  return (
    <Field className="flex items-center gap-2">
      <Radio
        value={value}
        className="group flex size-5 items-center justify-center rounded-full border border-gray-500 bg-white focus-ring data-checked:border-indigo-700 data-checked:bg-indigo-700"
      >
        <span className="invisible size-2 rounded-full bg-white group-data-checked:visible" />
      </Radio>
      <Label className="text-sm text-gray-900">{label}</Label>
    </Field>
  );
}

function CheckMark() {
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

const boxClass =
  'group flex size-5 shrink-0 items-center justify-center rounded border border-gray-500 bg-white focus-ring data-checked:border-indigo-700 data-checked:bg-indigo-700';

/** One form field, by type (server/src/modules/items/form.ts), with its 422 message inline. */
function FormFieldInput({
  field,
  value,
  error,
  onChange,
}: {
  field: FormField;
  value: unknown;
  error: string | undefined;
  onChange: (value: unknown) => void;
}) {
  const invalid = error !== undefined;
  const common = { invalid, 'aria-required': field.required || undefined, className: control };
  const legend = (
    <Legend className={labelClass}>
      {field.label}
      {required(field)}
    </Legend>
  );
  switch (field.type) {
    case 'yesno':
    case 'radio': {
      const options =
        field.type === 'yesno'
          ? [
              { value: 'true', label: field.yes_label ?? 'Yes' },
              { value: 'false', label: field.no_label ?? 'No' },
            ]
          : field.options;
      const current =
        field.type === 'yesno' ? (value === undefined ? '' : String(value)) : ((value as string) ?? '');
      return (
        <Fieldset aria-describedby={noteIds(field, error)}>
          {legend}
          <FieldShell field={field} error={error} inFieldset>
            <RadioGroup
              value={current}
              onChange={(next: string) => onChange(field.type === 'yesno' ? next === 'true' : next)}
              aria-label={field.label}
              aria-invalid={invalid || undefined}
              aria-required={field.required || undefined}
              className="mt-2 flex flex-wrap gap-x-5 gap-y-2"
            >
              {options.map((option) => (
                <ChoiceOption key={option.value} value={option.value} label={option.label} />
              ))}
            </RadioGroup>
          </FieldShell>
        </Fieldset>
      );
    }
    case 'multiselect': {
      const selected = Array.isArray(value) ? (value as string[]) : [];
      return (
        <Fieldset aria-invalid={invalid || undefined} aria-describedby={noteIds(field, error)}>
          {legend}
          <FieldShell field={field} error={error} inFieldset>
            <div className="mt-2 flex flex-col gap-2">
              {field.options.map((option) => (
                <Field key={option.value} className="flex items-center gap-2">
                  <Checkbox
                    checked={selected.includes(option.value)}
                    onChange={(checked) =>
                      onChange(
                        checked ? [...selected, option.value] : selected.filter((v) => v !== option.value),
                      )
                    }
                    className={boxClass}
                  >
                    <CheckMark />
                  </Checkbox>
                  <Label className="text-sm text-gray-900">{option.label}</Label>
                </Field>
              ))}
            </div>
          </FieldShell>
        </Fieldset>
      );
    }
    case 'checkbox':
      return (
        <Field>
          <div className="flex items-center gap-2">
            <Checkbox
              checked={value === true}
              onChange={onChange}
              aria-invalid={invalid || undefined}
              className={boxClass}
            >
              <CheckMark />
            </Checkbox>
            <Label className="text-sm font-medium text-gray-900">
              {field.label}
              {required(field)}
            </Label>
          </div>
          <FieldShell field={field} error={error}>
            {null}
          </FieldShell>
        </Field>
      );
    case 'select':
      return (
        <LabeledField field={field} error={error}>
          <Select
            value={(value as string) ?? ''}
            onChange={(event) => onChange(event.target.value)}
            {...common}
          >
            <option value="">{field.placeholder ?? 'Choose…'}</option>
            {field.options.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </Select>
        </LabeledField>
      );
    case 'textarea':
      return (
        <LabeledField field={field} error={error}>
          <Textarea
            rows={4}
            value={(value as string) ?? ''}
            placeholder={field.placeholder}
            onChange={(event) => onChange(event.target.value)}
            {...common}
          />
        </LabeledField>
      );
    default:
      // text, number, date
      return (
        <LabeledField field={field} error={error}>
          <Input
            type={field.type}
            value={value === undefined ? '' : String(value)}
            placeholder={field.placeholder}
            onChange={(event) => onChange(event.target.value)}
            {...(field.type === 'number' ? { min: field.min, max: field.max, step: 'any' } : {})}
            {...common}
          />
        </LabeledField>
      );
  }
}

/** A single control with its label, help and error (select, textarea, text, number, date). */
function LabeledField({
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
        {required(field)}
      </Label>
      <FieldShell field={field} error={error}>
        {children}
      </FieldShell>
    </Field>
  );
}

/**
 * The item's form. Nothing is checked in the browser: the server's 422 `fields` are shown next to
 * each field, with the server's words, so the dashboard never disagrees with the API.
 */
export function AnswerForm({ item, form }: { item: Item; form: Form }) {
  const queryClient = useQueryClient();
  const [values, setValues] = useState<Values>(() => initialValues(form));
  const mutation = useMutation({
    mutationFn: (answer: Values) => appClient.items.answer.mutate({ id: item.id, values: answer }),
    onSuccess: (answered) => applyItem(queryClient, answered),
  });
  const body = errorBody(mutation.error);
  const fieldErrors = body?.fields ?? {};
  const known = new Set(form.fields.map((f) => f.id));
  const otherErrors = Object.entries(fieldErrors).filter(([id]) => !known.has(id));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    mutation.mutate(toAnswer(form, values));
  };

  return (
    <form noValidate onSubmit={submit} aria-label="Answer" className="space-y-5">
      {form.fields.map((field) => (
        <FormFieldInput
          key={field.id}
          field={field}
          value={values[field.id]}
          error={fieldErrors[field.id]}
          onChange={(value) => setValues((current) => ({ ...current, [field.id]: value }))}
        />
      ))}
      {body && (
        <div role="alert" className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900">
          <p className="font-medium">{body.error}</p>
          {otherErrors.length > 0 && (
            <ul className="mt-1 list-disc pl-5">
              {otherErrors.map(([id, message]) => (
                <li key={id}>
                  <code>{id}</code>: {message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <Button type="submit" variant="primary" disabled={mutation.isPending}>
        {mutation.isPending ? 'Sending…' : 'Submit answer'}
      </Button>
    </form>
  );
}

/** A recorded answer, with the form's labels. */
export function AnswerView({ form, response }: { form: Form; response: Record<string, unknown> }) {
  const show = (field: FormField, value: unknown): string => {
    if (value === undefined || value === null) return '—';
    if (field.type === 'yesno') return value ? (field.yes_label ?? 'Yes') : (field.no_label ?? 'No');
    if (field.type === 'checkbox') return value ? 'Checked' : 'Not checked';
    if (field.type === 'select' || field.type === 'radio')
      return field.options.find((o) => o.value === value)?.label ?? String(value);
    if (field.type === 'multiselect' && Array.isArray(value))
      return value.map((v) => field.options.find((o) => o.value === v)?.label ?? String(v)).join(', ') || '—';
    return String(value);
  };
  return (
    <dl className="divide-y divide-gray-200 rounded-md border border-gray-200">
      {form.fields.map((field) => (
        <div key={field.id} className="grid gap-1 px-3 py-2 sm:grid-cols-3">
          <dt className="text-sm font-medium text-gray-800">{field.label}</dt>
          <dd className="text-sm whitespace-pre-wrap text-gray-900 sm:col-span-2">
            {show(field, response[field.id])}
          </dd>
        </div>
      ))}
    </dl>
  );
}
