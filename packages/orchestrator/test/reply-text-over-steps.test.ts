// A turn's reply is the text of its steps joined, and a step that only called a tool adds nothing
// to it (run-turn.ts's runSteps; a hand-made mutant that kept the empty text of a tool step, so the
// reply began with a blank paragraph, fails this test).
import type { ToolRunner } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const primary = { model: 'primary' };
const tools: ToolRunner = {
  definitions: [{ name: 'lookup', description: 'Looks up', inputSchema: { type: 'object' } }],
  async run() {
    return { content: 'found' };
  },
};

describe('the reply over tool steps', () => {
  it('a step with no text adds nothing: the reply is the last step’s text exactly', async () => {
    harness = await createHarness({
      tools,
      script: [
        {
          behavior: { type: 'ok', text: '', toolCalls: [{ id: 't1', name: 'lookup', input: {} }] },
          match: primary,
        },
        { behavior: { type: 'ok', text: 'The answer is 42.' }, match: primary },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'look',
      clientMessageId: 'c-1',
    });
    expect(harness.sent()).toHaveLength(2);
    expect(outcome).toMatchObject({ kind: 'reply', text: 'The answer is 42.' });
    const again = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'look',
      clientMessageId: 'c-1',
    });
    expect(again).toMatchObject({ kind: 'reply', text: 'The answer is 42.' });
  });
});
