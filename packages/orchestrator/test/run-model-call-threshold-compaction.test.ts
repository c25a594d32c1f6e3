// run-model-call.ts asks the compactor about its threshold once per model call, before the
// call's first request — not on the attempts that retry it, and again for the next step's call.
import type { CompactorPort, ToolRunner } from '@keel/spec';
import { mockFaults } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('the threshold compaction of a model call', () => {
  it('runs once before each call’s first request, whatever the call retries', async () => {
    const asked: Array<{ trigger: string | undefined; sentBefore: number }> = [];
    const compactor: CompactorPort = {
      async compact(request) {
        asked.push({ trigger: request.trigger, sentBefore: harness?.sent().length ?? -1 });
        return { status: 'skipped', reason: 'not-needed' };
      },
    };
    const tools: ToolRunner = {
      definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }],
      run: async () => ({ content: 'found' }),
    };
    harness = await createHarness({
      tools,
      compactor: () => compactor,
      script: [
        { behavior: mockFaults.serverError(500), times: 1 },
        { behavior: { type: 'ok', toolCalls: [{ name: 'lookup', input: {} }] }, times: 1 },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome.kind).toBe('reply');
    // Step 1: the failed request and its retry (which answers with the tool call); step 2: the reply.
    expect(outcome.attempts.map((attempt) => attempt.outcome)).toEqual(['error', 'ok', 'ok']);
    expect(asked).toEqual([
      { trigger: 'threshold', sentBefore: 0 },
      { trigger: 'threshold', sentBefore: 2 },
    ]);
  });
});
