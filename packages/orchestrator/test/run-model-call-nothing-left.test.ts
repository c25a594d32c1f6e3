// run-model-call.ts, with no candidate left (wait-or-end.ts ends the turn): the error names the
// model that was sent the request, and only that one — a model health kept back was never tried.
import { mockFaults } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { undefinedPaths } from './deep-undefined-members';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('no candidate left', () => {
  it('every profile cooling past maxWaitMs after one request: the error names the model tried', async () => {
    harness = await createHarness({
      models: { primary: 'anthropic/primary' },
      providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }] }],
      script: [
        {
          behavior: mockFaults.rateLimited({ retryAfterSeconds: 30 }),
          match: { model: 'primary' },
        },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(harness.sent()).toHaveLength(1);
    expect(outcome).toMatchObject({
      kind: 'error',
      errorKind: 'rate_limit',
      model: 'anthropic/primary',
      provider: 'anthropic',
    });
    expect(undefinedPaths(outcome)).toEqual([]);
  });
});
