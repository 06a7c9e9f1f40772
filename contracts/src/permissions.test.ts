import { describe, expect, it } from 'vitest';
import { agentPermissions, can, grants, missingToGrant, PERMISSION_CATALOG } from './permissions';

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

describe('missingToGrant (escalation guard)', () => {
  const owner = [...PERMISSION_CATALOG];
  const admin = PERMISSION_CATALOG.filter((p) => p !== 'org.delete' && p !== 'org.billing');

  it('lets a caller grant what it holds, and names the first permission it lacks', () => {
    expect(missingToGrant(['items.read', 'items.write'], ['items.read'])).toBeNull();
    expect(missingToGrant(['items.read'], ['items.read', 'items.write'])).toBe('items.write');
  });

  it('expands wildcards over the catalog', () => {
    expect(missingToGrant(owner, ['items.*', '*'])).toBeNull();
    expect(missingToGrant(admin, ['items.*'])).toBeNull();
    expect(missingToGrant(admin, ['org.*'])).toBe('org.delete');
    expect(missingToGrant(admin, ['*'])).toBe('org.delete');
    expect(missingToGrant(['items.*'], ['items.*'])).toBeNull();
  });

  it('reserves permissions outside the catalog to holders of the whole catalog', () => {
    expect(missingToGrant(owner, ['reports.export', 'custom.*'])).toBeNull();
    expect(missingToGrant(admin, ['reports.export'])).toBe('org.delete');
    expect(missingToGrant(['*'], ['anything'])).toBeNull();
  });
});
