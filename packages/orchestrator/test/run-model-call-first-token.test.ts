// run-model-call.ts records, on an answered attempt, when its first output came (`firstTokenMs`,
// from the attempt's start on the turn's clock); an attempt that produced nothing has no such member.
import { mockFaults } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('firstTokenMs on attempt records', () => {
  it('the answered attempt has it, the failed one before it does not', async () => {
    harness = await createHarness({
      script: [{ behavior: mockFaults.serverError(500), match: { model: 'primary' }, times: 1 }],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome.kind).toBe('reply');
    expect(outcome.attempts.map((attempt) => attempt.outcome)).toEqual(['error', 'ok']);
    expect('firstTokenMs' in outcome.attempts[0]!).toBe(false);
    expect(outcome.attempts[1]?.firstTokenMs).toBeGreaterThanOrEqual(0);
  });
});
