import { describe, expect, it } from 'vitest';
import { UpstreamRotation } from './upstreams';

describe('UpstreamRotation', () => {
  it('takes the upstreams in turn, skips one that failed while it rests, then takes it again', () => {
    let now = 0;
    const rotation = new UpstreamRotation(['a', 'b', 'c'], 1000, () => now);
    expect([1, 2, 3, 4].map(() => rotation.pick())).toEqual(['a', 'b', 'c', 'a']);
    rotation.failed('b');
    expect([1, 2, 3, 4].map(() => rotation.pick())).toEqual(['c', 'a', 'c', 'a']);
    now = 1000;
    expect([1, 2, 3].map(() => rotation.pick())).toEqual(['b', 'c', 'a']);
  });

  it('when every upstream rests, still tries the next in turn rather than none', () => {
    const rotation = new UpstreamRotation(['a', 'b'], 1000, () => 0);
    rotation.failed('a');
    rotation.failed('b');
    expect([1, 2, 3].map(() => rotation.pick())).toEqual(['a', 'b', 'a']);
  });
});
