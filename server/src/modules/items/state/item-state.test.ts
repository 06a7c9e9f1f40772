import { describe, expect, it } from 'vitest';
import { type ItemAction, type ItemStatus, nextStatus, outcome } from './item-state';

const state = (status: ItemStatus, extra: { before?: ItemStatus; hasResponse?: boolean } = {}) => ({
  status,
  statusBeforeArchive: extra.before ?? null,
  hasResponse: extra.hasResponse ?? false,
});

describe('item status machine', () => {
  it.each<[ItemAction, ItemStatus, ItemStatus | null]>([
    ['answer', 'open', 'answered'],
    ['answer', 'answered', null],
    ['answer', 'dismissed', null],
    ['dismiss', 'open', 'dismissed'],
    ['dismiss', 'answered', 'dismissed'],
    ['dismiss', 'expired', null],
    ['ack', 'answered', 'answered'],
    ['ack', 'archived', null],
    ['archive', 'expired', 'archived'],
    ['archive', 'archived', null],
    ['unarchive', 'open', null],
    ['restore', 'open', null],
    ['restore', 'answered', null],
    ['withdraw', 'open', 'withdrawn'],
    ['withdraw', 'answered', null],
    ['expire', 'open', 'expired'],
    ['expire', 'dismissed', null],
    ['snooze', 'archived', null],
    ['snooze', 'dismissed', 'dismissed'],
    ['pin', 'archived', 'archived'],
  ])('%s from %s gives %s', (action, from, to) => {
    expect(nextStatus(action, state(from))).toBe(to);
  });

  it('unarchives to the remembered status', () => {
    expect(nextStatus('unarchive', state('archived', { before: 'answered' }))).toBe('answered');
    expect(nextStatus('unarchive', state('archived'))).toBe('open');
  });

  it('restores to answered when a response is recorded, else open', () => {
    expect(nextStatus('restore', state('dismissed', { hasResponse: true }))).toBe('answered');
    expect(nextStatus('restore', state('expired'))).toBe('open');
    expect(nextStatus('restore', state('withdrawn'))).toBe('open');
  });

  it('reports an archived item by the status it was archived from', () => {
    expect(outcome('archived', 'dismissed')).toBe('dismissed');
    expect(outcome('answered', null)).toBe('answered');
  });
});
