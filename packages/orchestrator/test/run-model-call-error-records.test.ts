// run-model-call.ts records each failed attempt with its error fields (turn-steps.ts
// `errorFields`): the HTTP status and the provider's retry-after when there are any, and no such
// member at all when there are none (a reset connection has no status).
import { mockFaults } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { undefinedPaths } from './deep-undefined-members';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const primary = { model: 'primary' };

describe('a failed attempt’s error fields', () => {
  it('a connection reset before headers: an error kind, and no status or retryAfterMs member', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'reset-before-headers' }, match: primary, times: 1 }],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome.kind).toBe('reply');
    const failed = outcome.attempts[0]!;
    expect(failed.outcome).toBe('error');
    expect(failed.errorKind).toBeDefined();
    expect('status' in failed).toBe(false);
    expect('retryAfterMs' in failed).toBe(false);
    expect(undefinedPaths(outcome)).toEqual([]);
  });

  it('an HTTP 500 keeps its status', async () => {
    harness = await createHarness({
      script: [{ behavior: mockFaults.serverError(500), match: primary, times: 1 }],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome.kind).toBe('reply');
    expect(outcome.attempts[0]).toMatchObject({ outcome: 'error', status: 500 });
  });

  it('a 429 with retry-after keeps its status and the wait it asked for', async () => {
    harness = await createHarness({
      script: [
        {
          behavior: mockFaults.rateLimited({ retryAfterSeconds: 5 }),
          match: primary,
          times: 1,
        },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome.kind).toBe('reply');
    expect(outcome.attempts[0]).toMatchObject({
      outcome: 'error',
      errorKind: 'rate_limit',
      status: 429,
      retryAfterMs: 5_000,
    });
  });
});
