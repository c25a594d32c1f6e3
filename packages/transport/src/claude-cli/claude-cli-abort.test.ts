import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FakeClaudeTurn } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliTestFixture, collect, createCliTestFixture, userTurn } from './cli-test-fixture';
import { createClaudeCliTransport } from './create-claude-cli-transport';
import { isProcessAlive } from './process-tree';

let fixture: CliTestFixture | undefined;
afterEach(() => {
  fixture?.cleanup();
  fixture = undefined;
});

const hangingTool: FakeClaudeTurn['steps'] = [
  { type: 'tool_use', id: 'toolu_long', name: 'Bash', input: { command: 'sleep' }, hang: true },
];

function setup(turn: FakeClaudeTurn, abortGraceMs: number) {
  fixture = createCliTestFixture({ turns: [{ sessionId: 'cli-abort', ...turn }] });
  const transport = createClaudeCliTransport({
    command: fixture.fake.command,
    cwd: fixture.cwd,
    env: fixture.fake.env,
    abortGraceMs,
  });
  return { fixture, transport };
}

function processIds(current: CliTestFixture) {
  return current.fake.log().flatMap((entry) => (entry.type === 'signal' ? [] : [entry.pid]));
}

function signals(current: CliTestFixture) {
  return current.fake.log().flatMap((entry) => (entry.type === 'signal' ? [entry.signal] : []));
}

describe('createClaudeCliTransport: abort', () => {
  it('sends SIGTERM first; a CLI that exits on it answers its tool and leaves nothing behind', async () => {
    const { fixture, transport } = setup({ steps: hangingTool }, 30_000);
    const controller = new AbortController();
    const { error } = await collect(
      transport.stream(
        { messages: [userTurn('go')] },
        { signal: controller.signal, sessionId: 'gw' },
      ),
      (event) => {
        if (event.type === 'tool-call') controller.abort();
      },
    );
    expect(error).toMatchObject({ name: 'AbortError', keelKind: 'caller_abort' });
    expect(signals(fixture)).toEqual(['SIGTERM']);
    const pids = processIds(fixture);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(false);
    // The polite stop let the CLI write the tool_result: the transcript stays resumable.
    const transcript = readFileSync(fixture.fake.transcriptPath(fixture.cwd, 'cli-abort'), 'utf8');
    expect(transcript).toContain('"tool_use_id":"toolu_long"');
  });

  it('waits for a CLI behind a wrapper script (like npm .bin/claude) to finish its SIGTERM cleanup', async () => {
    fixture = createCliTestFixture({
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
    const controller = new AbortController();
    const { error } = await collect(
      transport.stream({ messages: [userTurn('go')] }, { signal: controller.signal }),
      (event) => {
        if (event.type === 'tool-call') controller.abort();
      },
    );
    expect(error).toMatchObject({ keelKind: 'caller_abort' });
    expect(signals(fixture)).toEqual(['SIGTERM']);
    const pids = processIds(fixture);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(false);
    const transcript = readFileSync(
      fixture.fake.transcriptPath(fixture.cwd, 'cli-wrapped'),
      'utf8',
    );
    expect(transcript).toContain('"tool_use_id":"toolu_long"');
  });

  it('escalates to SIGKILL after the grace period and kills the tool process in its own session', async () => {
    const { fixture, transport } = setup({ steps: hangingTool, onSigterm: 'ignore' }, 300);
    const controller = new AbortController();
    const { error } = await collect(
      transport.stream({ messages: [userTurn('go')] }, { signal: controller.signal }),
      (event) => {
        if (event.type === 'tool-call') controller.abort();
      },
    );
    expect(error).toMatchObject({ keelKind: 'caller_abort' });
    expect(signals(fixture)).toEqual(['SIGTERM']);
    const pids = processIds(fixture);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(false);
  });

  it('kills the CLI when the consumer stops reading early', async () => {
    const { fixture, transport } = setup({ steps: hangingTool, onSigterm: 'ignore' }, 100);
    for await (const event of transport.stream({ messages: [userTurn('go')] })) {
      if (event.type === 'tool-call') break;
    }
    const pids = processIds(fixture);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(false);
  });

  it('ends a silent CLI with a timeout error from the no-output watchdog', async () => {
    fixture = createCliTestFixture({
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
    const { events, error } = await collect(transport.stream({ messages: [userTurn('go')] }));
    expect(events.filter((event) => event.type === 'finish')).toEqual([]);
    expect(error).toMatchObject({
      name: 'TransportTimeoutError',
      keelKind: 'timeout',
      timeoutKind: 'stall',
    });
    const pids = processIds(fixture);
    expect(pids).toHaveLength(1);
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(false);
  });
});
