// call-once.ts records an attempt's `firstTokenMs` as the time from the attempt's start to its
// first output, on the turn's clock: here the clock moves 250 ms between the two.
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('firstTokenMs', () => {
  it('is the time from the attempt’s start to its first output', async () => {
    harness = await createHarness();
    const h = harness;
    h.orchestrator.subscribe((event) => {
      if (event.type === 'attempt-start') h.clock.advance(250);
    });
    const outcome = await h.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome.kind).toBe('reply');
    expect(outcome.attempts).toHaveLength(1);
    expect(outcome.attempts[0]?.firstTokenMs).toBe(250);
  });
});
