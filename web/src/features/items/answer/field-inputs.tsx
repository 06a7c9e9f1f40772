import {
  Checkbox,
  Field,
  Fieldset,
  Input,
  Label,
  Radio,
  RadioGroup,
  Select,
  Textarea,
} from '@headlessui/react';
import {
  boxClass,
  CheckMark,
  controlProps,
  type FieldProps,
  FieldShell,
  FieldsetLegend,
  LabeledField,
  noteIds,
  RequiredMark,
} from './field-layout';

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

/** yesno and radio: one choice among radio buttons (yesno's value is a boolean). */
function ChoiceInput({ field, value, error, onChange }: FieldProps<'yesno' | 'radio'>) {
  const invalid = error !== undefined;
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
      <FieldsetLegend field={field} />
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

/** multiselect: a checkbox per option; the value is the list of checked options. */
function MultiselectInput({ field, value, error, onChange }: FieldProps<'multiselect'>) {
  const selected = Array.isArray(value) ? (value as string[]) : [];
  return (
    <Fieldset aria-invalid={error !== undefined || undefined} aria-describedby={noteIds(field, error)}>
      <FieldsetLegend field={field} />
      <FieldShell field={field} error={error} inFieldset>
        <div className="mt-2 flex flex-col gap-2">
          {field.options.map((option) => (
            <Field key={option.value} className="flex items-center gap-2">
              <Checkbox
                checked={selected.includes(option.value)}
                onChange={(checked) =>
                  onChange(checked ? [...selected, option.value] : selected.filter((v) => v !== option.value))
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

/** checkbox: one box, its label beside it. */
function CheckboxInput({ field, value, error, onChange }: FieldProps<'checkbox'>) {
  return (
    <Field>
      <div className="flex items-center gap-2">
        <Checkbox
          checked={value === true}
          onChange={onChange}
          aria-invalid={error !== undefined || undefined}
          className={boxClass}
        >
          <CheckMark />
        </Checkbox>
        <Label className="text-sm font-medium text-gray-900">
          {field.label}
          <RequiredMark field={field} />
        </Label>
      </div>
      <FieldShell field={field} error={error}>
        {null}
      </FieldShell>
    </Field>
  );
}

function SelectInput({ field, value, error, onChange }: FieldProps<'select'>) {
  return (
    <LabeledField field={field} error={error}>
      <Select
        value={(value as string) ?? ''}
        onChange={(event) => onChange(event.target.value)}
        {...controlProps(field, error)}
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
}

function TextareaInput({ field, value, error, onChange }: FieldProps<'textarea'>) {
  return (
    <LabeledField field={field} error={error}>
      <Textarea
        rows={4}
        value={(value as string) ?? ''}
        placeholder={field.placeholder}
        onChange={(event) => onChange(event.target.value)}
        {...controlProps(field, error)}
      />
    </LabeledField>
  );
}

/** text, number and date: the browser's input of that type; the value stays text until sent. */
function TypedInput({ field, value, error, onChange }: FieldProps<'text' | 'number' | 'date'>) {
  return (
    <LabeledField field={field} error={error}>
      <Input
        type={field.type}
        value={value === undefined ? '' : String(value)}
        placeholder={field.placeholder}
        onChange={(event) => onChange(event.target.value)}
        {...(field.type === 'number' ? { min: field.min, max: field.max, step: 'any' } : {})}
        {...controlProps(field, error)}
      />
    </LabeledField>
  );
}

/** One form field, by type (contracts/src/items/form-fields.ts), with its 422 message inline. */
export function FieldInput({ field, ...rest }: FieldProps) {
  switch (field.type) {
    case 'yesno':
    case 'radio':
      return <ChoiceInput field={field} {...rest} />;
    case 'multiselect':
      return <MultiselectInput field={field} {...rest} />;
    case 'checkbox':
      return <CheckboxInput field={field} {...rest} />;
    case 'select':
      return <SelectInput field={field} {...rest} />;
    case 'textarea':
      return <TextareaInput field={field} {...rest} />;
    default:
      return <TypedInput field={field} {...rest} />;
  }
}
