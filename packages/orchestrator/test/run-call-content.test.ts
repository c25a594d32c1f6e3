// A stateless call's `content` is the model's own message (run-call.ts, line 65): a port that runs
// its own tools (the Claude Code CLI) also reports their results, and those stay out of it, as the
// client gets back only what the assistant said. Hand-made mutant: `segment.role === 'assistant'`
// replaced by `true` puts the CLI's tool result into the content, and this test fails.
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeCliHarness, LS_STEPS } from './fake-cli-harness';
import type { Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('a stateless call’s content', () => {
  it('over a port that ran its own tool: the assistant’s blocks, without the tool’s result', async () => {
    harness = await createFakeCliHarness({ steps: LS_STEPS });
    const outcome = await harness.orchestrator.runCall({
      request: { messages: [{ role: 'user', content: 'What is here?' }] },
    });
    expect(outcome).toMatchObject({ kind: 'reply', model: 'cli/claude-fake' });
    expect(outcome.content).toEqual([
      { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } },
      { type: 'text', text: 'There is a.txt.' },
    ]);
  });
});
