// A model call's usage is written once, on the last message the call produced (run-turn.ts's
// runSteps). A port that runs its own tools (claude-cli) answers one call with several messages:
// its text and tool call, the tool's result, its closing text. A hand-made mutant that wrote the
// usage on every one of them, so the transcript counted the call three times, fails this test.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MessageEntry } from '@keel/spec';
import { createFakeClaude } from '@keel/testing';
import { createTransport } from '@keel/transport';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
let scratch: string | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

describe('the usage of a call that ran its own tools', () => {
  it('is on the call’s last message only, so the transcript adds up to the turn’s usage', async () => {
    scratch = mkdtempSync(join(tmpdir(), 'keel-step-usage-'));
    const cwd = join(scratch, 'work');
    mkdirSync(cwd);
    const fake = createFakeClaude({
      dir: scratch,
      scenario: {
        turns: [
          {
            steps: [
              { type: 'text', text: 'Let me look.' },
              {
                type: 'tool_use',
                id: 'toolu_1',
                name: 'Bash',
                input: { command: 'ls' },
                result: 'a.txt',
              },
              { type: 'text', text: 'There is a.txt.' },
            ],
            usage: { inputTokens: 42, outputTokens: 7 },
          },
        ],
      },
    });
    const cli = createTransport({
      api: 'claude-cli',
      provider: 'cli',
      command: fake.command,
      cwd,
      env: fake.env,
      abortGraceMs: 0,
    });
    harness = await createHarness({
      providers: [{ id: 'cli', profiles: [{ id: 'local' }] }],
      models: { primary: 'cli/claude-fake' },
      overrides: { router: { connect: () => cli } },
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
