// A stateless call's `content` is the model's own message (run-call.ts, line 65): a port that runs
// its own tools (the Claude Code CLI) also reports their results, and those stay out of it, as the
// client gets back only what the assistant said. Hand-made mutant: `segment.role === 'assistant'`
// replaced by `true` puts the CLI's tool result into the content, and this test fails.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

describe('a stateless call’s content', () => {
  it('over a port that ran its own tool: the assistant’s blocks, without the tool’s result', async () => {
    scratch = mkdtempSync(join(tmpdir(), 'keel-run-call-content-'));
    const cwd = join(scratch, 'work');
    mkdirSync(cwd);
    const fake = createFakeClaude({
      dir: scratch,
      scenario: {
        turns: [
          {
            steps: [
              {
                type: 'tool_use',
                id: 'toolu_1',
                name: 'Bash',
                input: { command: 'ls' },
                result: 'a.txt',
              },
              { type: 'text', text: 'There is a.txt.' },
            ],
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
