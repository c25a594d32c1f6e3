// A turn cut by the step cap names the model it last called (run-turn.ts's lastTarget). A hand-made
// mutant that dropped the target (`true ? {} : { target }`) fails this test.
import type { ToolRunner } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const tools: ToolRunner = {
  definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }],
  async run() {
    return { content: 'found' };
  },
};

describe('the step cap', () => {
  it('ends error with the model last called named on the outcome', async () => {
    harness = await createHarness({
      tools,
      overrides: { maxSteps: 1 },
      script: [
        {
          behavior: { type: 'ok', text: '', toolCalls: [{ id: 't1', name: 'lookup', input: {} }] },
          match: { model: 'primary' },
        },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'go' });
    expect(outcome).toMatchObject({
      kind: 'error',
      model: 'anthropic/primary',
      provider: 'anthropic',
    });
    expect(harness.decisions()).toContain('final');
    expect(harness.sent()).toHaveLength(1);
  });
});
