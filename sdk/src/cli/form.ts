import type { Form, FormField } from '../types';

const CHOICE_TYPES = new Set(['select', 'radio', 'multiselect']);

/**
 * A form field from `id:type:label`, or `id:type:label:a,b,c` for select, radio and multiselect
 * (each option's value is also its label). A label may contain colons except on choice types.
 */
export function parseFieldSpec(spec: string): FormField {
  const [id, type, ...rest] = spec.split(':');
  if (!id || !type || rest.length === 0) throw new Error(`--field "${spec}": expected id:type:label`);
  let label = rest.join(':');
  let options: { value: string; label: string }[] | undefined;
  if (CHOICE_TYPES.has(type)) {
    const last = rest.length > 1 ? rest.pop() : undefined;
    if (!last)
      throw new Error(`--field "${spec}": a ${type} field needs options, e.g. id:${type}:Label:a,b,c`);
    label = rest.join(':');
    options = last.split(',').map((value) => ({ value: value.trim(), label: value.trim() }));
  }
  // The server validates the rest (types, labels, options) and answers with precise field paths.
  return { id, type, label, ...(options ? { options } : {}) } as FormField;
}

export function formFromFields(specs: string[]): Form {
  return { id: 'form', fields: specs.map(parseFieldSpec) };
}
