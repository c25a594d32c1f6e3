// A harness whose only model is the fake Claude Code CLI (`@keel/testing`) over the real
// `claude-cli` transport: a port that runs its own tools and answers one call with several
// messages. `close()` also removes the fake's scratch folder.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeClaude, type FakeClaudeStep, type FakeClaudeTurn } from '@keel/testing';
import { createTransport } from '@keel/transport';
import { createHarness, type Harness } from './harness';

/** The CLI runs `ls` with its own Bash tool, then says what it found. */
export const LS_STEPS: FakeClaudeStep[] = [
  { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' }, result: 'a.txt' },
  { type: 'text', text: 'There is a.txt.' },
];

/** The model is `cli/claude-fake`; its one turn is `turn`. */
export async function createFakeCliHarness(turn: FakeClaudeTurn): Promise<Harness> {
  const scratch = mkdtempSync(join(tmpdir(), 'keel-fake-cli-'));
  const cwd = join(scratch, 'work');
  mkdirSync(cwd);
  const fake = createFakeClaude({ dir: scratch, scenario: { turns: [turn] } });
  const cli = createTransport({
    api: 'claude-cli',
    provider: 'cli',
    command: fake.command,
    cwd,
    env: fake.env,
    abortGraceMs: 0,
  });
  const harness = await createHarness({
    providers: [{ id: 'cli', profiles: [{ id: 'local' }] }],
    models: { primary: 'cli/claude-fake' },
    overrides: { router: { connect: () => cli } },
  });
  return {
    ...harness,
    close: async () => {
      await harness.close();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
