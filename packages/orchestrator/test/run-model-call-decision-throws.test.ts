// run-model-call.ts: an error out of the failure's handling (here the clock's backoff sleep fails)
// goes up to the turn (which ends in error) when nothing stopped the turn — it is neither read as a
// stop nor swallowed into another attempt.
import { mockFaults } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeClock } from './fake-clock';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('a failure’s handling that throws, with no stop', () => {
  it('the turn ends in error (not aborted), after the one request', async () => {
    const clock = createFakeClock();
    const broken = new Error('the timer broke');
    harness = await createHarness({
      script: [{ behavior: mockFaults.serverError(500), match: { model: 'primary' }, times: 1 }],
      overrides: {
        clock: {
          now: clock.now,
          sleep: async (ms, signal) => {
            if (ms > 0) throw broken;
            return clock.sleep(ms, signal);
          },
        },
      },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    // The turn's own error (the timer's, unclassified), not a stop.
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'unknown' });
    expect(harness.sent()).toHaveLength(1);
    expect(outcome.attempts.map(({ outcome, decision }) => ({ outcome, decision }))).toEqual([
      { outcome: 'error', decision: 'retry_same' },
    ]);
  });
});
