import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyError } from '@keel/error-classification';
import type { FakeClaudeStep, FakeClaudeTurn } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import {
  abortAtToolCall,
  aliveFakeProcesses,
  type CliTestFixture,
  createCliTestFixture,
  drain,
  fakeProcessIds,
  fakeSignals,
  userTurn,
} from '../../test/cli-test-fixture';
import { TransportTimeoutError } from '../transport-error';
import { ClaudeCliError } from './claude-cli-error';
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

  it('ends a silent CLI with a timeout error from the no-output watchdog', async () => {
    const fixture = createCliTestFixture({
      turns: [
        { steps: [{ type: 'text', text: 'thinking…' }, { type: 'silence' }], onSigterm: 'ignore' },
      ],
    });
    const transport = createClaudeCliTransport({
      command: fixture.fake.command,
      cwd: fixture.cwd,
      env: fixture.fake.env,
      noOutputTimeoutMs: 2_500,
      abortGraceMs: 100,
    });
    const { events, error } = await drain(transport.stream(go));
    expect(events.filter((event) => event.type === 'finish')).toEqual([]);
    expect(error).toMatchObject({
      name: 'TransportTimeoutError',
      keelKind: 'timeout',
      timeoutKind: 'stall',
    });
    expect(fakeProcessIds(fixture)).toHaveLength(1);
    expect(aliveFakeProcesses(fixture)).toEqual([]);
  });

  it.each([
    ['attempt', { timeoutMs: 1_500 }],
    ['first-token', { firstTokenTimeoutMs: 1_500 }],
  ] as const)(
    'ends a silent CLI with a per-call timeout of kind %s',
    async (timeoutKind, clock) => {
      // Only init, then silence: session-bound is not a first token. The clocks leave the CLI
      // ample time to start, so init always comes first.
      const fixture = createCliTestFixture({
        turns: [{ steps: [{ type: 'silence' }], onSigterm: 'ignore' }],
      });
      const transport = createClaudeCliTransport({
        command: fixture.fake.command,
        cwd: fixture.cwd,
        env: fixture.fake.env,
        noOutputTimeoutMs: 60_000,
        abortGraceMs: 100,
      });
      const { events, error } = await drain(transport.stream(go, { sessionId: 'gw', ...clock }));
      expect(events.map((event) => event.type)).toEqual(['session-bound']);
      expect(error).toMatchObject({
        name: 'TransportTimeoutError',
        keelKind: 'timeout',
        timeoutKind,
      });
      expect(fakeProcessIds(fixture)).toHaveLength(1);
      expect(aliveFakeProcesses(fixture)).toEqual([]);
    },
  );

  it.each([
    [
      'stall',
      'a tool it finished',
      [
        { type: 'tool_use', id: 'toolu_ran', name: 'Bash', input: { command: 'touch x' } },
        { type: 'silence' },
      ],
      { noOutputTimeoutMs: 4_000 },
      {},
    ],
    [
      'attempt',
      'a tool still running',
      [
        {
          type: 'tool_use',
          id: 'toolu_ran',
          name: 'Bash',
          input: { command: 'sleep' },
          hang: true,
        },
      ],
      { noOutputTimeoutMs: 300_000 },
      { timeoutMs: 4_000 },
    ],
  ] as const)(
    'a %s timeout after %s is final, not a retryable timeout (a retry would run the tool again)',
    async (timeoutKind, _what, steps, transportClock, callClock) => {
      // The clocks leave the CLI ample time to start and announce its tool before they run out.
      const fixture = createCliTestFixture({
        turns: [{ steps: [...steps] as FakeClaudeStep[], onSigterm: 'ignore' }],
      });
      const transport = createClaudeCliTransport({
        command: fixture.fake.command,
        cwd: fixture.cwd,
        env: fixture.fake.env,
        abortGraceMs: 100,
        ...transportClock,
      });
      const { events, error } = await drain(transport.stream(go, callClock));
      expect(
        events.filter((event) => event.type === 'tool-call').map((event) => event.type),
      ).toEqual(['tool-call']);
      expect(ClaudeCliError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ keelKind: 'unknown', toolUseIds: ['toolu_ran'] });
      expect(TransportTimeoutError.isInstance((error as Error).cause)).toBe(true);
      expect((error as Error).cause).toMatchObject({ timeoutKind });
      expect(classifyError(error)).toMatchObject({ kind: 'unknown', retryable: false });
      expect(aliveFakeProcesses(fixture)).toEqual([]);
    },
  );
});
