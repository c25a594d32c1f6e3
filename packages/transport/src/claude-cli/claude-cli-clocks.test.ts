import { classifyError } from '@keel/error-classification';
import type { FakeClaudeStep } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import {
  aliveFakeProcesses,
  createCliTestFixture,
  drain,
  fakeProcessIds,
  userTurn,
} from '../../test/cli-test-fixture';
import { TransportTimeoutError } from '../transport-error';
import { ClaudeCliError } from './claude-cli-error';
import { createClaudeCliTransport } from './create-claude-cli-transport';

const go = { messages: [userTurn('go')] };

/**
 * A clock for tests where the CLI must start and print something before it runs out. Starting a
 * node process takes a fraction of a second idle and seconds on a loaded 2-core machine; the
 * clock runs from the spawn, so it gets a wide margin over that.
 */
const AFTER_START_MS = 6_000;

describe('createClaudeCliTransport: clocks', () => {
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
      noOutputTimeoutMs: AFTER_START_MS,
      abortGraceMs: 100,
    });
    const { events, error } = await drain(transport.stream(go));
    expect(events).toEqual([{ type: 'text-delta', text: 'thinking…' }]);
    expect(error).toMatchObject({
      name: 'TransportTimeoutError',
      keelKind: 'timeout',
      timeoutKind: 'stall',
    });
    expect(fakeProcessIds(fixture)).toHaveLength(1);
    expect(aliveFakeProcesses(fixture)).toEqual([]);
  });

  it.each([
    ['attempt', { timeoutMs: AFTER_START_MS }],
    ['first-token', { firstTokenTimeoutMs: AFTER_START_MS }],
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
      { noOutputTimeoutMs: AFTER_START_MS },
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
      { timeoutMs: AFTER_START_MS },
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
