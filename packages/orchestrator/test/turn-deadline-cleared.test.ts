// A turn's deadline ends with the turn (run-turn.ts clears its `turnTimeoutMs` timer). A timer left
// behind would hold the finished turn in memory until the deadline and then abort the turn's signal,
// which hooks and ports were handed and may still hold. A hand-made mutant that did not clear the
// timer fails this test: the deadline fires after the turn and aborts the signal its hook saw.
import type { TurnHooks } from '@keel/spec';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await harness?.close();
  harness = undefined;
});

const TURN_TIMEOUT_MS = 10 * 60_000;

describe('the turn deadline', () => {
  it('is gone once the turn ended: the signal a hook saw never aborts afterwards', async () => {
    // Only the timers are fake, and they follow real time, so the loopback calls run as always;
    // the test then moves them past the deadline at once.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    const signals: AbortSignal[] = [];
    const hooks: TurnHooks = {
      beforeModelCall(context) {
        signals.push(context.signal);
        return undefined;
      },
    };
    harness = await createHarness({
      hooks,
      overrides: { turnTimeoutMs: TURN_TIMEOUT_MS },
    });

    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome.kind).toBe('reply');
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(false);

    await vi.advanceTimersByTimeAsync(TURN_TIMEOUT_MS + 1_000);
    expect(signals[0]?.aborted).toBe(false);
  });

  it('still stops a turn that outlives it (the same hook, the same fake timers)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    let reached: () => void = () => undefined;
    const inHook = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const hooks: TurnHooks = {
      // Holds the model call until the turn's signal aborts: only the deadline can end this turn.
      beforeModelCall({ signal }) {
        reached();
        return new Promise((_, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
      },
    };
    harness = await createHarness({ hooks, overrides: { turnTimeoutMs: TURN_TIMEOUT_MS } });

    const turn = harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    await inHook;
    await vi.advanceTimersByTimeAsync(TURN_TIMEOUT_MS);
    const outcome = await turn;
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'timeout' });
    expect(harness.sent()).toHaveLength(0);
  });
});
