// When `turnTimeoutMs` passes, the turn's signal aborts with a reason that says so, and a tool
// still running is stopped with that same reason: it can tell the turn's deadline from a caller's
// stop. A hand-made mutant that aborted with an empty message fails this test.
import type { ToolRunner } from '@keel/spec';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await harness?.close();
  harness = undefined;
});

const TURN_TIMEOUT_MS = 10 * 60_000;

describe('the turn deadline’s reason', () => {
  it('a tool running when the deadline passes is stopped with “turn deadline passed”', async () => {
    // Only the timers are fake, following real time: the loopback calls run as always.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    let running: () => void = () => undefined;
    const inTool = new Promise<void>((resolve) => {
      running = resolve;
    });
    const reasons: unknown[] = [];
    const tools: ToolRunner = {
      definitions: [{ name: 'slow', inputSchema: { type: 'object' } }],
      run(_call, { signal }) {
        running();
        return new Promise((_, reject) => {
          signal.addEventListener(
            'abort',
            () => {
              reasons.push(signal.reason);
              reject(signal.reason);
            },
            { once: true },
          );
        });
      },
    };
    harness = await createHarness({
      tools,
      script: [
        {
          behavior: { type: 'ok', text: '', toolCalls: [{ id: 't1', name: 'slow', input: {} }] },
          match: { model: 'primary' },
        },
      ],
      overrides: { turnTimeoutMs: TURN_TIMEOUT_MS, toolTimeoutMs: 2 * TURN_TIMEOUT_MS },
    });

    const turn = harness.orchestrator.runTurn({ sessionId: 's1', input: 'go' });
    await inTool;
    await vi.advanceTimersByTimeAsync(TURN_TIMEOUT_MS);
    const outcome = await turn;
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'timeout' });
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toBeInstanceOf(Error);
    expect((reasons[0] as Error).message).toBe('turn deadline passed');
  });
});
