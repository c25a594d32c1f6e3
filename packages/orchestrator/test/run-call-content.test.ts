// A stateless call's `content` is what the model said (run-call.ts, `clientContent`): a port that
// runs its own tools (the Claude Code CLI) also reports the tool calls it ran and their results,
// and both stay out of it — a client sending that content back would send a `tool_use` without its
// result, which providers refuse (400). A tool call the client must run stays (run-call.test.ts).
// Hand-made mutants: `segment.role === 'assistant'` replaced by `true` (the tool's result in the
// content), and the filter dropped or made to keep every `tool_use` (the CLI's Bash call in the
// content), each fail this test.
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeCliHarness, LS_STEPS } from './fake-cli-harness';
import type { Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('a stateless call’s content', () => {
  it('over a port that ran its own tool: what the assistant said, without the tool’s call or result', async () => {
    harness = await createFakeCliHarness({
      steps: [{ type: 'text', text: 'Let me look.' }, ...LS_STEPS],
    });
    const outcome = await harness.orchestrator.runCall({
      request: { messages: [{ role: 'user', content: 'What is here?' }] },
    });
    expect(outcome).toMatchObject({ kind: 'reply', model: 'cli/claude-fake' });
    expect(outcome.content).toEqual([
      { type: 'text', text: 'Let me look.' },
      // The port puts a blank line before the text that follows a tool's result.
      { type: 'text', text: '\n\nThere is a.txt.' },
    ]);
  });
});
