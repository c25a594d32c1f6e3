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

  it('agrees with the plan at and around every boundary of the threshold and of keepRecentTokens', () => {
    const entries = sampleTranscript();
    const tokens = createCompactor().plan(entries).tokensBefore;
    const reserveTokens = 100;
    let yes = 0;
    for (const window of [
      tokens + reserveTokens - 1,
      tokens + reserveTokens,
      tokens + reserveTokens + 1,
    ])
      for (const keepRecentTokens of [1, tokens - 1, tokens, tokens + 1]) {
        const compactor = createCompactor({
          contextWindowTokens: window,
          reserveTokens,
          keepRecentTokens,
        });
        const plan = compactor.plan(entries);
        const expected = plan.compacted.length > 0 && plan.shouldCompact;
        expect(compactor.shouldCompact(entries), `window ${window}, keep ${keepRecentTokens}`).toBe(
          expected,
        );
        if (expected) yes += 1;
      }
    // Both answers occur: over the threshold (window − reserve below the tokens) with room to cut.
    expect(yes).toBeGreaterThan(0);
    expect(yes).toBeLessThan(12);
  });
});
