import { describe, expect, it } from 'vitest';
import { hasNonCanonicalPath } from './canonical-path';

describe('hasNonCanonicalPath', () => {
  it('finds an escaped letter, digit or -._~ anywhere in the path, in either case of hex', () => {
    for (const url of [
      '/%61pi/me',
      '/api/%6De',
      '/trpc/items%2Ecreate',
      '/%2e%2e/x',
      '/a%5Fb',
      '/a%7e',
      '/%30',
    ]) {
      expect(hasNonCanonicalPath(url)).toBe(true);
    }
  });
  it('leaves other escapes and the query alone', () => {
    for (const url of [
      '/api/me',
      '/api/settings/a%2Fb',
      '/trpc/a,b',
      '/trpc/a%2Cb',
      '/x/%40me',
      '/api/me?q=%61',
    ]) {
      expect(hasNonCanonicalPath(url)).toBe(false);
    }
  });
});
