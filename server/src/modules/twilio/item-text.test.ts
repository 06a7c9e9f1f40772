import type { Form } from '@beckon/contracts/items/form.contract';
import { describe, expect, it } from 'vitest';
import { keyword, matchChoice, splitReply, textChoices } from './item-text';

const YES_NO = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'Ship?', required: true }] } as Form;
const SIZES = {
  id: 'c',
  fields: [
    {
      id: 'size',
      type: 'radio',
      label: 'Size',
      required: true,
      options: [
        { value: 's', label: 'Crème brûlée' },
        { value: 'l', label: '2 hours' },
      ],
    },
  ],
} as Form;

const pick = (reply: string, form: Form | null) => {
  const choices = textChoices({ form, require_reauth: null }) ?? [];
  return matchChoice(reply, choices, form)?.label ?? null;
};

describe('reading a texted reply', () => {
  it('takes a number, a label (case and accents aside) and yes/no words', () => {
    expect(pick('1', YES_NO)).toBe('Yes');
    expect(pick(' NO. ', YES_NO)).toBe('No');
    expect(pick('oui', YES_NO)).toBe('Yes');
    expect(pick('creme BRULEE', SIZES)).toBe('Crème brûlée');
    expect(pick('2', SIZES)).toBe('2 hours');
  });

  it('names no choice for anything else', () => {
    expect(pick('3', YES_NO)).toBeNull();
    expect(pick('maybe', YES_NO)).toBeNull();
    expect(pick('yes', SIZES)).toBeNull();
  });

  it('reads a leading reference as the item it answers', () => {
    expect(splitReply('#12 Yes')).toEqual({ ref: 12, answer: 'yes' });
    expect(splitReply('3: no')).toEqual({ ref: 3, answer: 'no' });
    expect(splitReply('yes')).toEqual({ ref: null, answer: 'yes' });
    expect(splitReply('2')).toEqual({ ref: null, answer: '2' });
  });

  it('knows the opt-out and opt-in words, and nothing else', () => {
    expect(keyword('STOP')).toBe('opt_out');
    expect(keyword('Unsubscribe!')).toBe('opt_out');
    expect(keyword('start')).toBe('opt_in');
    expect(keyword('stop the deploy')).toBeNull();
  });
});
