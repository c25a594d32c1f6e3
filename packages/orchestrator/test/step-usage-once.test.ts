// A model call's usage is written once, on the last message the call produced (run-turn.ts's
// runSteps). A port that runs its own tools (claude-cli) answers one call with several messages:
// its text and tool call, the tool's result, its closing text. A hand-made mutant that wrote the
// usage on every one of them, so the transcript counted the call three times, fails this test.
import type { MessageEntry } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeCliHarness, LS_STEPS } from './fake-cli-harness';
import type { Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('the usage of a call that ran its own tools', () => {
  it('is on the call’s last message only, so the transcript adds up to the turn’s usage', async () => {
    harness = await createFakeCliHarness({
      steps: [{ type: 'text', text: 'Let me look.' }, ...LS_STEPS],
      usage: { inputTokens: 42, outputTokens: 7 },
    });

    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'What is here?' });

    expect(outcome).toMatchObject({ kind: 'reply', usage: { inputTokens: 42, outputTokens: 7 } });
    const messages = (await harness.entries('s1')).filter(
      (entry): entry is MessageEntry => entry.type === 'message' && entry.turnId === outcome.turnId,
    );
    // The call's three messages: text and tool call, the tool's result, the closing text.
    expect(messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(messages.map((message) => message.usage)).toEqual([
      undefined,
      undefined,
      undefined,
      { inputTokens: 42, outputTokens: 7 },
    ]);
    const written = messages.reduce(
      (sum, message) =>
        sum + (message.usage?.inputTokens ?? 0) + (message.usage?.outputTokens ?? 0),
      0,
    );
    expect(written).toBe(49);
  });
});
