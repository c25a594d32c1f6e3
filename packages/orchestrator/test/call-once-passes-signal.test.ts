// call-once.ts hands the turn's signal to everything one attempt waits on or decides with: the
// fence's `release` before the request, its `reacquire` after, and the classifier that names the
// failure (a stop then reads as the caller's, not as the model's fault).
import { classifyError } from '@keel/error-classification';
import { mockFaults } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { Classification } from '../src/index';
import { type FenceCall, recordedFences } from './call-once-fence-calls';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('the turn’s signal in one attempt', () => {
  it('the fence’s release and reacquire and the classifier all get the same signal', async () => {
    const calls: FenceCall[] = [];
    const classified: Array<AbortSignal | undefined> = [];
    harness = await createHarness({
      script: [{ behavior: mockFaults.serverError(500), match: { model: 'primary' }, times: 1 }],
      overrides: {
        fences: recordedFences(() => harness!.storage, calls),
        classify: (error, options) => {
          classified.push(options.signal);
          return classifyError(error, options) as Classification;
        },
      },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome.attempts.map((attempt) => attempt.outcome)).toEqual(['error', 'ok']);
    expect(calls.map((call) => call.method)).toEqual([
      'release',
      'reacquire',
      'release',
      'reacquire',
    ]);
    const signal = calls[0]?.signal;
    expect(signal).toBeInstanceOf(AbortSignal);
    for (const call of calls) expect(call.signal).toBe(signal);
    expect(classified).toHaveLength(1);
    expect(classified[0]).toBe(signal);
  });
});
