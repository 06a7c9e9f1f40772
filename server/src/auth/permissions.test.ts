import { describe, expect, it } from 'vitest';
import { agentPermissions, can, grants } from './permissions';

describe('permission matcher', () => {
  it.each([
    ['items.read', 'items.read', true],
    ['items.read', 'items.write', false],
    ['items.*', 'items.read', true],
    ['items.*', 'items.x', true],
    ['items.*', 'itemsfoo', false],
    ['items.*', 'itemsfoo.read', false],
    ['items.*', 'items', false],
    ['a.*', 'a', false],
    ['a.*', 'a.b.c.d', true],
    ['a.b.*', 'a.b.c.d', true],
    ['a.b.*', 'a.bc', false],
    ['a.b.*', 'a.c.d', false],
    ['*', 'anything.at.all', true],
    ['*', 'x', true],
    ['items.read.*', 'items.read', false],
    ['items', 'items.read', false],
    ['.*', 'items.read', false],
  ])('%s grants %s: %s', (granted, required, expected) => {
    expect(grants(granted, required)).toBe(expected);
  });

  it('grants when any held permission matches, and never from an empty set', () => {
    expect(can(['audit.read', 'items.*'], 'items.archive')).toBe(true);
    expect(can(['audit.read'], 'items.archive')).toBe(false);
    expect(can([], 'items.read')).toBe(false);
  });

  it('narrows an API key to the item permissions its owner holds', () => {
    expect(agentPermissions(['*'])).toEqual(['items.read', 'items.write', 'items.archive']);
    expect(agentPermissions(['items.read', 'org.manage'])).toEqual(['items.read']);
    expect(agentPermissions(['items.*'])).toEqual(['items.read', 'items.write', 'items.archive']);
    expect(agentPermissions(['org.*'])).toEqual([]);
  });
});
