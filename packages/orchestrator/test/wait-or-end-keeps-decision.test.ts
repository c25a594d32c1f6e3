// wait-or-end.ts explains the attempt that left nothing to try only when nothing explained it yet:
// after a wait that freed a profile of a model still resting, nothing is left again and the turn
// ends — the attempt keeps its `wait` (what did happen after it); the `final` is the turn's.
import { type MockBehavior, mockFaults } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A 500 asking for `retry-after: 5` (s): the model rests 5 000 ms. */
const serverErrorRetryIn5s: MockBehavior = {
  type: 'http-error',
  status: 500,
  headers: { 'retry-after': '5' },
};

describe('a second time with nothing left', () => {
  it('the attempt explained by the wait keeps it; the turn’s end is a decision of its own', async () => {
    harness = await createHarness({
      models: { primary: 'anthropic/primary' },
      providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }, { id: 'k2' }] }],
      script: [
        // k1 cools for 1 s (the turn rotates to k2); k2's model then rests for 5 s.
        { behavior: mockFaults.rateLimited({ retryAfterSeconds: 1 }), times: 1 },
        { behavior: serverErrorRetryIn5s, times: 1 },
      ],
      overrides: { retry: { maxRetries: 0, maxWaitMs: 2_000 } },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    // The 1 s wait frees k1, but the model still rests (4 s more, past maxWaitMs): the end.
    expect(harness.clock.sleeps).toEqual([1_000]);
    expect(harness.sent()).toHaveLength(2);
    expect(harness.decisions()).toEqual(['rotate_profile', 'wait', 'final']);
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'server_error' });
    expect(outcome.attempts.map((attempt) => attempt.decision)).toEqual(['rotate_profile', 'wait']);
  });
});
