import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FakeClaudeTurn } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import {
  abortAtToolCall,
  aliveFakeProcesses,
  type CliTestFixture,
  createCliTestFixture,
  fakeProcessIds,
  fakeSignals,
  userTurn,
} from '../../test/cli-test-fixture';
import { createClaudeCliTransport } from './create-claude-cli-transport';

const hangingTool: FakeClaudeTurn['steps'] = [
  { type: 'tool_use', id: 'toolu_long', name: 'Bash', input: { command: 'sleep' }, hang: true },
];
const go = { messages: [userTurn('go')] };

function setup(turn: FakeClaudeTurn, abortGraceMs: number) {
  const fixture = createCliTestFixture({ turns: [{ sessionId: 'cli-abort', ...turn }] });
  const transport = createClaudeCliTransport({
    command: fixture.fake.command,
    cwd: fixture.cwd,
    env: fixture.fake.env,
    abortGraceMs,
  });
  return { fixture, transport };
}

/** The fake CLI and the tool process it started both ran, and neither is left. */
function expectCliAndToolGone(current: CliTestFixture) {
  expect(fakeProcessIds(current)).toHaveLength(2);
  expect(aliveFakeProcesses(current)).toEqual([]);
}

describe('createClaudeCliTransport: abort', () => {
  it('sends SIGTERM first; a CLI that exits on it answers its tool and leaves nothing behind', async () => {
    const { fixture, transport } = setup({ steps: hangingTool }, 30_000);
    const { error } = await abortAtToolCall(transport, go, { sessionId: 'gw' });
    expect(error).toMatchObject({ name: 'AbortError', keelKind: 'caller_abort' });
    expect(fakeSignals(fixture)).toEqual(['SIGTERM']);
    expectCliAndToolGone(fixture);
    // The polite stop let the CLI write the tool_result: the transcript stays resumable.
    const transcript = readFileSync(fixture.fake.transcriptPath(fixture.cwd, 'cli-abort'), 'utf8');
    expect(transcript).toContain('"tool_use_id":"toolu_long"');
  });

  it('waits for a CLI behind a wrapper script (like npm .bin/claude) to finish its SIGTERM cleanup', async () => {
    const fixture = createCliTestFixture({
      turns: [{ sessionId: 'cli-wrapped', steps: hangingTool, sigtermCleanupMs: 400 }],
    });
    // The shell stays the parent (no exec), as in npm's wrapper: it dies on SIGTERM at once,
    // while the real CLI behind it is still writing its tool_result.
    const wrapper = join(fixture.dir, 'claude-wrapper.sh');
    writeFileSync(wrapper, `#!/bin/sh\n"${fixture.fake.command}" "$@"\nexit $?\n`);
    chmodSync(wrapper, 0o755);
    const transport = createClaudeCliTransport({
      command: wrapper,
      cwd: fixture.cwd,
      env: fixture.fake.env,
      abortGraceMs: 30_000,
    });
    const { error } = await abortAtToolCall(transport, go);
    expect(error).toMatchObject({ keelKind: 'caller_abort' });
    expect(fakeSignals(fixture)).toEqual(['SIGTERM']);
    expectCliAndToolGone(fixture);
    const transcript = readFileSync(
      fixture.fake.transcriptPath(fixture.cwd, 'cli-wrapped'),
      'utf8',
    );
    expect(transcript).toContain('"tool_use_id":"toolu_long"');
  });

  it('escalates to SIGKILL after the grace period and kills the tool process in its own session', async () => {
    const { fixture, transport } = setup({ steps: hangingTool, onSigterm: 'ignore' }, 300);
    const { error } = await abortAtToolCall(transport, go);
    expect(error).toMatchObject({ keelKind: 'caller_abort' });
    expect(fakeSignals(fixture)).toEqual(['SIGTERM']);
    expectCliAndToolGone(fixture);
  });

  it('kills the CLI when the consumer stops reading early', async () => {
    const { fixture, transport } = setup({ steps: hangingTool, onSigterm: 'ignore' }, 100);
    for await (const event of transport.stream(go)) {
      if (event.type === 'tool-call') break;
    }
    expectCliAndToolGone(fixture);
  });
});
