// wait-or-end.ts waits for the shortest cooldown when it is within `retry.maxWaitMs` — a wait of
// exactly `maxWaitMs` included — and ends the turn when it is longer.
import type { MockBehavior } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A 500 asking for `retry-after: 2` (s): the only model rests 2 000 ms, nothing else is left. */
const serverErrorRetryIn2s: MockBehavior = {
  type: 'http-error',
  status: 500,
  headers: { 'retry-after': '2' },
};

async function turnWithMaxWait(maxWaitMs: number) {
  harness = await createHarness({
    models: { primary: 'anthropic/primary' },
    providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }] }],
    script: [{ behavior: serverErrorRetryIn2s, match: { model: 'primary' }, times: 1 }],
    overrides: { retry: { maxRetries: 0, maxWaitMs } },
  });
  return harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
}

describe('the wait when nothing is left, at the maxWaitMs edge', () => {
  it('a rest of exactly maxWaitMs is waited for, and the model tried again', async () => {
    const outcome = await turnWithMaxWait(2_000);
    expect(outcome.kind).toBe('reply');
    expect(harness?.clock.sleeps).toContain(2_000);
    expect(harness?.decisions()).toEqual(['wait']);
    expect(harness?.sent()).toHaveLength(2);
  });

  it('a rest 1 ms past maxWaitMs ends the turn at once', async () => {
    const outcome = await turnWithMaxWait(1_999);
    expect(outcome).toMatchObject({
      kind: 'error',
      errorKind: 'server_error',
      retryAfterMs: 2_000,
    });
    expect(harness?.decisions()).toEqual(['final']);
    expect(harness?.sent()).toHaveLength(1);
  });
});
