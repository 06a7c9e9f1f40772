// Longer than 300 lines: a table of cases, one per field type and rule of the form specification.

import { type Form, ZForm } from '@beckon/contracts/items/form.contract';
import { describe, expect, it } from 'vitest';
import { validateAnswer } from './form-answer';

const OPTIONS = [
  { value: 'a', label: 'Alpha' },
  { value: 'b', label: 'Beta' },
];

/** A minimal valid field of each type, to be extended or broken by individual tests. */
const MINIMAL: Record<string, Record<string, unknown>> = {
  yesno: { id: 'yn', type: 'yesno', label: 'Deploy?' },
  checkbox: { id: 'cb', type: 'checkbox', label: 'I agree' },
  text: { id: 'tx', type: 'text', label: 'Name' },
  textarea: { id: 'ta', type: 'textarea', label: 'Notes' },
  number: { id: 'nb', type: 'number', label: 'Count' },
  select: { id: 'sl', type: 'select', label: 'Pick', options: OPTIONS },
  radio: { id: 'rd', type: 'radio', label: 'Pick one', options: OPTIONS },
  multiselect: { id: 'ms', type: 'multiselect', label: 'Pick some', options: OPTIONS },
  date: { id: 'dt', type: 'date', label: 'When' },
};

function field(type: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...MINIMAL[type], ...extra };
}

function definition(...fields: unknown[]): Record<string, unknown> {
  return { id: 'form-1', fields };
}

/** Issues keyed by dotted path, the way callers report them. */
function issuesOf(input: unknown): Record<string, string[]> {
  const result = ZForm.safeParse(input);
  if (result.success) return {};
  const byPath: Record<string, string[]> = {};
  for (const issue of result.error.issues) {
    const key = issue.path.map(String).join('.');
    byPath[key] = [...(byPath[key] ?? []), issue.message];
  }
  return byPath;
}

function form(...fields: unknown[]): Form {
  return ZForm.parse(definition(...fields));
}

describe('ZForm: valid definitions', () => {
  it.each(Object.keys(MINIMAL))('accepts a minimal %s field', (type) => {
    const result = ZForm.safeParse(definition(field(type)));
    expect(result.success).toBe(true);
    expect(result.data?.fields[0]?.type).toBe(type);
  });

  it('accepts every type with all of its optional keys and keeps them', () => {
    const common = { required: true, placeholder: 'type here', help: 'Some help' };
    const input = definition(
      field('yesno', { ...common, yes_label: 'Ship it', no_label: 'Hold', default: false }),
      field('checkbox', { ...common, default: true }),
      field('text', { ...common, min_length: 2, max_length: 10, default: 'abc' }),
      field('textarea', { ...common, min_length: 0, max_length: 1000, default: 'line 1\nline 2' }),
      field('number', { ...common, min: -5, max: 5.5, default: 0 }),
      field('select', { ...common, default: 'a' }),
      field('radio', { ...common, default: 'b' }),
      field('multiselect', { ...common, default: ['a', 'b'] }),
      field('date', { ...common, default: '2024-02-29' }),
    );
    const result = ZForm.safeParse(input);
    expect(result.success).toBe(true);
    expect(result.data).toEqual(input);
  });

  it('accepts equal bounds (min = max)', () => {
    expect(issuesOf(definition(field('text', { min_length: 3, max_length: 3 })))).toEqual({});
    expect(issuesOf(definition(field('number', { min: 1, max: 1 })))).toEqual({});
  });

  it('accepts exactly 50 fields', () => {
    const fields = Array.from({ length: 50 }, (_, i) => field('text', { id: `f${i}` }));
    expect(ZForm.safeParse(definition(...fields)).success).toBe(true);
  });

  it('accepts ids made of letters, digits, "_", "." and "-"', () => {
    expect(issuesOf(definition(field('text', { id: 'a.B_9-z' })))).toEqual({});
  });
});

describe('ZForm: refused definitions', () => {
  it.each<[string, unknown, string]>([
    ['select without options', definition({ id: 's', type: 'select', label: 'Pick' }), 'fields.0.options'],
    ['radio without options', definition({ id: 'r', type: 'radio', label: 'Pick' }), 'fields.0.options'],
    ['multiselect with empty options', definition(field('multiselect', { options: [] })), 'fields.0.options'],
    ['options that are not a list', definition(field('select', { options: 'a,b' })), 'fields.0.options'],
    [
      'option without label',
      definition(field('select', { options: [{ value: 'a' }] })),
      'fields.0.options.0.label',
    ],
    [
      'option with empty value',
      definition(field('radio', { options: [{ value: '', label: 'x' }] })),
      'fields.0.options.0.value',
    ],
    ['options on text', definition(field('text', { options: OPTIONS })), 'fields.0.options'],
    ['options on yesno', definition(field('yesno', { options: OPTIONS })), 'fields.0.options'],
    ['yes_label on checkbox', definition(field('checkbox', { yes_label: 'Yes' })), 'fields.0.yes_label'],
    ['no_label on select', definition(field('select', { no_label: 'No' })), 'fields.0.no_label'],
    ['min_length on number', definition(field('number', { min_length: 1 })), 'fields.0.min_length'],
    ['max_length on date', definition(field('date', { max_length: 10 })), 'fields.0.max_length'],
    ['min on text', definition(field('text', { min: 1 })), 'fields.0.min'],
    ['max on textarea', definition(field('textarea', { max: 1 })), 'fields.0.max'],
    [
      'min_length > max_length',
      definition(field('text', { min_length: 5, max_length: 4 })),
      'fields.0.min_length',
    ],
    ['min > max', definition(field('number', { min: 10, max: 1 })), 'fields.0.min'],
    ['negative min_length', definition(field('textarea', { min_length: -1 })), 'fields.0.min_length'],
    ['fractional max_length', definition(field('text', { max_length: 2.5 })), 'fields.0.max_length'],
    ['NaN min', definition(field('number', { min: Number.NaN })), 'fields.0.min'],
    ['empty id', definition(field('text', { id: '' })), 'fields.0.id'],
    ['id with a space', definition(field('text', { id: 'a b' })), 'fields.0.id'],
    ['id longer than 64', definition(field('text', { id: 'x'.repeat(65) })), 'fields.0.id'],
    ['empty label', definition(field('text', { label: '' })), 'fields.0.label'],
    ['missing label', definition({ id: 'x', type: 'text' }), 'fields.0.label'],
    ['label longer than 500', definition(field('text', { label: 'x'.repeat(501) })), 'fields.0.label'],
    [
      'placeholder longer than 500',
      definition(field('text', { placeholder: 'x'.repeat(501) })),
      'fields.0.placeholder',
    ],
    ['help longer than 2000', definition(field('text', { help: 'x'.repeat(2001) })), 'fields.0.help'],
    ['required that is not a boolean', definition(field('text', { required: 'yes' })), 'fields.0.required'],
    ['unknown type', definition({ id: 'x', type: 'slider', label: 'L' }), 'fields.0.type'],
    ['missing type', definition({ id: 'x', label: 'L' }), 'fields.0.type'],
    ['empty fields', definition(), 'fields'],
    ['fields that are not a list', { id: 'f', fields: {} }, 'fields'],
    ['missing form id', { fields: [field('text')] }, 'id'],
  ])('refuses %s at %s', (_name, input, path) => {
    expect(Object.keys(issuesOf(input))).toContain(path);
  });

  it('says why options are missing', () => {
    expect(issuesOf(definition({ id: 's', type: 'select', label: 'Pick' }))).toEqual({
      'fields.0.options': ['required'],
    });
  });

  it('explains where a misplaced key belongs', () => {
    expect(issuesOf(definition(field('text', { options: OPTIONS })))).toEqual({
      'fields.0.options': ['only allowed on select, radio and multiselect fields'],
    });
  });

  it('reports the second of two duplicate field ids', () => {
    const issues = issuesOf(
      definition(field('text', { id: 'x' }), field('number'), field('date', { id: 'x' })),
    );
    expect(issues).toEqual({ 'fields.2.id': ['duplicate field id "x"'] });
  });

  it('reports the duplicate option value at its position', () => {
    const options = [...OPTIONS, { value: 'a', label: 'Again' }];
    expect(issuesOf(definition(field('select', { options })))).toEqual({
      'fields.0.options.2.value': ['duplicate option value "a"'],
    });
  });

  it('reports min > max with a message naming the other bound', () => {
    expect(issuesOf(definition(field('number', { min: 3, max: 2 })))).toEqual({
      'fields.0.min': ['must not be greater than max'],
    });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['yesno', { default: 'yes' }, 'must be true or false'],
    ['checkbox', { default: 1 }, 'must be true or false'],
    ['text', { default: 42 }, 'must be text'],
    ['text', { default: 'two\nlines' }, 'must be a single line'],
    ['text', { max_length: 3, default: 'toolong' }, 'must be at most 3 characters'],
    ['textarea', { min_length: 5, default: 'abc' }, 'must be at least 5 characters'],
    ['number', { default: '5' }, 'must be a number'],
    ['number', { max: 10, default: 11 }, 'must be at most 10'],
    ['select', { default: 'c' }, 'must be one of: a, b'],
    ['radio', { default: 'Alpha' }, 'must be one of: a, b'],
    ['multiselect', { default: ['a', 'a'] }, 'must not repeat a choice'],
    ['multiselect', { default: ['z'] }, 'each choice must be one of: a, b'],
    ['multiselect', { default: 'a' }, 'must be a list'],
    ['date', { default: '2026-02-30' }, 'must be a date (YYYY-MM-DD)'],
  ])('refuses a bad %s default %j', (type, extra, message) => {
    expect(issuesOf(definition(field(type, extra)))).toEqual({ 'fields.0.default': [message] });
  });

  it('refuses an unknown key on a field', () => {
    const result = ZForm.safeParse(definition(field('text', { colour: 'red' })));
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([
      expect.objectContaining({ code: 'unrecognized_keys', keys: ['colour'], path: ['fields', 0] }),
    ]);
  });

  it('refuses an unknown key on the form', () => {
    const result = ZForm.safeParse({ ...definition(field('text')), title: 'Hi' });
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([
      expect.objectContaining({ code: 'unrecognized_keys', keys: ['title'], path: [] }),
    ]);
  });

  it('refuses more than 50 fields', () => {
    const fields = Array.from({ length: 51 }, (_, i) => field('text', { id: `f${i}` }));
    expect(issuesOf(definition(...fields))).toEqual({ fields: ['must have at most 50 fields'] });
  });

  it('refuses a form without fields', () => {
    expect(issuesOf(definition())).toEqual({ fields: ['must have at least one field'] });
  });

  it('refuses things that are not forms', () => {
    for (const input of [null, 'form', [], 42]) expect(ZForm.safeParse(input).success).toBe(false);
  });

  it('reports problems in several fields at once', () => {
    const issues = issuesOf(
      definition(field('select', { options: [] }), field('text'), field('number', { min: 2, max: 1 })),
    );
    expect(Object.keys(issues).sort()).toEqual(['fields.0.options', 'fields.2.min']);
  });
});

describe('validateAnswer', () => {
  const everyType = form(
    field('yesno'),
    field('checkbox'),
    field('text', { min_length: 2, max_length: 5 }),
    field('textarea', { max_length: 20 }),
    field('number', { min: 0, max: 10 }),
    field('select'),
    field('radio'),
    field('multiselect'),
    field('date'),
  );

  const fullAnswer = {
    yn: true,
    cb: false,
    tx: 'Ann',
    ta: 'two\nlines',
    nb: 7.5,
    sl: 'a',
    rd: 'b',
    ms: ['b', 'a'],
    dt: '2026-03-01',
  };

  it('accepts a complete valid answer and returns it unchanged', () => {
    expect(validateAnswer(everyType, fullAnswer)).toEqual({ ok: true, values: fullAnswer });
  });

  it.each<[string, unknown]>([
    ['yn', false],
    ['cb', true],
    ['tx', 'abcde'],
    ['tx', '👍👍'],
    ['ta', 'x'.repeat(20)],
    ['nb', 0],
    ['nb', 10],
    ['nb', -0],
    ['sl', 'b'],
    ['rd', 'a'],
    ['ms', ['a']],
    ['dt', '2024-02-29'],
    ['dt', '2000-02-29'],
    ['dt', '2026-12-31'],
  ])('accepts %s = %j', (id, value) => {
    expect(validateAnswer(everyType, { [id]: value })).toEqual({ ok: true, values: { [id]: value } });
  });

  it.each<[string, unknown, string]>([
    ['yn', 'yes', 'must be true or false'],
    ['yn', 1, 'must be true or false'],
    ['cb', 'false', 'must be true or false'],
    ['tx', 5, 'must be text'],
    ['tx', 'a', 'must be at least 2 characters'],
    ['tx', 'abcdef', 'must be at most 5 characters'],
    ['tx', 'a\nb', 'must be a single line'],
    ['ta', 'x'.repeat(21), 'must be at most 20 characters'],
    ['ta', ['text'], 'must be text'],
    ['nb', '5', 'must be a number'],
    ['nb', true, 'must be a number'],
    ['nb', Number.NaN, 'must be a number'],
    ['nb', Number.POSITIVE_INFINITY, 'must be a number'],
    ['nb', -1, 'must be at least 0'],
    ['nb', 10.01, 'must be at most 10'],
    ['sl', 'c', 'must be one of: a, b'],
    ['sl', 'Alpha', 'must be one of: a, b'],
    ['rd', ['a'], 'must be one of: a, b'],
    ['ms', 'a', 'must be a list'],
    ['ms', ['a', 'z'], 'each choice must be one of: a, b'],
    ['ms', ['a', 1], 'each choice must be one of: a, b'],
    ['ms', ['a', 'b', 'a'], 'must not repeat a choice'],
    ['dt', '2026-02-30', 'must be a date (YYYY-MM-DD)'],
    ['dt', '2026-02-29', 'must be a date (YYYY-MM-DD)'],
    ['dt', '2100-02-29', 'must be a date (YYYY-MM-DD)'],
    ['dt', '2026-13-01', 'must be a date (YYYY-MM-DD)'],
    ['dt', '2026-04-31', 'must be a date (YYYY-MM-DD)'],
    ['dt', '2026-00-10', 'must be a date (YYYY-MM-DD)'],
    ['dt', '2026-3-1', 'must be a date (YYYY-MM-DD)'],
    ['dt', '2026-03-01T10:00:00Z', 'must be a date (YYYY-MM-DD)'],
    ['dt', 20260301, 'must be a date (YYYY-MM-DD)'],
  ])('refuses %s = %j with "%s"', (id, value, message) => {
    expect(validateAnswer(everyType, { [id]: value })).toEqual({ ok: false, fields: { [id]: message } });
  });

  describe('required and optional fields', () => {
    const required = form(
      field('text', { required: true }),
      field('multiselect', { required: true }),
      field('number', { required: true }),
    );

    it.each<[string, unknown]>([
      ['left out', undefined],
      ['null', null],
    ])('refuses a required field %s', (_name, value) => {
      const answer = value === undefined ? { ms: ['a'], nb: 1 } : { tx: value, ms: ['a'], nb: 1 };
      expect(validateAnswer(required, answer)).toEqual({ ok: false, fields: { tx: 'required' } });
    });

    it('treats an empty string and an empty list as missing', () => {
      expect(validateAnswer(required, { tx: '', ms: [], nb: 0 })).toEqual({
        ok: false,
        fields: { tx: 'required', ms: 'required' },
      });
    });

    it('reports every missing required field', () => {
      expect(validateAnswer(required, {})).toEqual({
        ok: false,
        fields: { tx: 'required', ms: 'required', nb: 'required' },
      });
    });

    it('accepts false for a required yesno and a required checkbox', () => {
      const booleans = form(field('yesno', { required: true }), field('checkbox', { required: true }));
      expect(validateAnswer(booleans, { yn: false, cb: false })).toEqual({
        ok: true,
        values: { yn: false, cb: false },
      });
    });

    it('accepts 0 for a required number', () => {
      expect(validateAnswer(form(field('number', { required: true })), { nb: 0 })).toEqual({
        ok: true,
        values: { nb: 0 },
      });
    });

    it('omits optional fields that are left out, null, or empty', () => {
      const result = validateAnswer(everyType, { yn: true, tx: null, ms: [], ta: '' });
      expect(result).toEqual({ ok: true, values: { yn: true } });
    });

    it('does not apply length limits to an optional field left empty', () => {
      expect(validateAnswer(everyType, { tx: '' })).toEqual({ ok: true, values: {} });
    });

    it('does not fill in defaults', () => {
      const withDefaults = form(field('yesno', { default: true }), field('select', { default: 'a' }));
      expect(validateAnswer(withDefaults, {})).toEqual({ ok: true, values: {} });
    });

    it('still requires a required field that has a default', () => {
      const withDefault = form(field('select', { required: true, default: 'a' }));
      expect(validateAnswer(withDefault, {})).toEqual({ ok: false, fields: { sl: 'required' } });
    });
  });

  describe('unknown fields and odd inputs', () => {
    it('refuses field ids the form does not have', () => {
      expect(validateAnswer(everyType, { yn: true, nope: 1, other: null })).toEqual({
        ok: false,
        fields: { nope: 'unknown field', other: 'unknown field' },
      });
    });

    it('reports unknown fields together with invalid ones', () => {
      expect(validateAnswer(everyType, { nope: 1, nb: '5' })).toEqual({
        ok: false,
        fields: { nope: 'unknown field', nb: 'must be a number' },
      });
    });

    it('refuses a "__proto__" key without touching any prototype', () => {
      const result = validateAnswer(everyType, JSON.parse('{"__proto__": {"polluted": true}}'));
      expect(result).toEqual({ ok: false, fields: { ['__proto__']: 'unknown field' } });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it.each<[string, unknown]>([
      ['null', null],
      ['undefined', undefined],
      ['a string', 'yes'],
      ['a number', 1],
      ['an array', [true]],
      ['a Date', new Date()],
      ['a Map', new Map([['yn', true]])],
    ])('refuses %s as the values', (_name, values) => {
      expect(validateAnswer(everyType, values)).toEqual({
        ok: false,
        fields: { values: 'must be an object' },
      });
    });

    it('accepts an object without a prototype', () => {
      const values: Record<string, unknown> = Object.create(null);
      values.yn = true;
      expect(validateAnswer(everyType, values)).toEqual({ ok: true, values: { yn: true } });
    });

    it('returns only known fields, in form order', () => {
      const result = validateAnswer(everyType, { dt: '2026-01-01', yn: false });
      expect(result.ok && Object.keys(result.values)).toEqual(['yn', 'dt']);
    });
  });
});
