import { describe, expect, it } from 'vitest';
import { transientBytes } from './transient-bytes';

describe('transientBytes', () => {
  it('never hands out the same bytes twice, across slabs too', () => {
    const views = Array.from({ length: 40 }, (_, index) => transientBytes(4097 + index));
    for (const [index, view] of views.entries()) view.fill(index);
    for (const [index, view] of views.entries()) {
      expect(view.length).toBe(4097 + index);
      expect(view.every((byte) => byte === index)).toBe(true);
    }
  });

  it('gives a large request an allocation of its own', () => {
    const large = transientBytes(64 * 1024);
    const small = transientBytes(16);
    expect(large.buffer).not.toBe(small.buffer);
    expect(large.length).toBe(64 * 1024);
  });
});
