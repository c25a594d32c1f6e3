import { describe, expect, it } from 'vitest';
import { sampleTranscript } from '../test/sample-transcript';
import { createCompactor } from './create-compactor';

describe('compactor.shouldCompact', () => {
  it('says yes only over the threshold with something to compact, as a threshold compact would', () => {
    const entries = sampleTranscript(); // about 1 300 tokens
    const over = createCompactor({
      contextWindowTokens: 1_000,
      reserveTokens: 100,
      keepRecentTokens: 50,
    });
    expect(over.shouldCompact(entries)).toBe(true);
    expect(over.plan(entries).shouldCompact).toBe(true);

    const under = createCompactor({ contextWindowTokens: 200_000 });
    expect(under.shouldCompact(entries)).toBe(false);

    // Over the threshold, but keepRecentTokens keeps every message: nothing to compact.
    const keepsAll = createCompactor({
      contextWindowTokens: 1_000,
      reserveTokens: 100,
      keepRecentTokens: 100_000,
    });
    expect(keepsAll.plan(entries).compacted).toEqual([]);
    expect(keepsAll.shouldCompact(entries)).toBe(false);
  });
});
