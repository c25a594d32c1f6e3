// A stateless call (run-call.ts) and the signals around it: its deadline aborts the call's signal
// with a reason that says so (line 50); once the call has ended, neither its deadline nor its
// caller's later abort reaches the signal its hooks and port were handed, and it leaves no listener
// on the caller's signal (the `finally` of lines 75–80, `removeEventListener('abort', …)` on
// line 77); and its listener on the caller's signal goes as soon as the abort reached it (line 125,
// `{ once: true }`). Hand-made mutants, each failing a test here: the deadline's Error with an
// empty message; the `finally` block emptied; `removeEventListener('')`; the caller's listener
// added with `{}` or `{ once: false }`.
import { getEventListeners } from 'node:events';
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
const conversation = { messages: [{ role: 'user' as const, content: 'What is 2 + 2?' }] };

/** A beforeModelCall hook that keeps each signal it sees, and (with `hold`) waits for its abort. */
function signalHook(hold: boolean): {
  hooks: TurnHooks;
  signals: AbortSignal[];
  reached: Promise<void>;
} {
  const signals: AbortSignal[] = [];
  let reach: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  const hooks: TurnHooks = {
    beforeModelCall({ signal }) {
      signals.push(signal);
      reach();
      if (!hold) return undefined;
      return new Promise((_, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    },
  };
  return { hooks, signals, reached };
}

describe('a stateless call’s signals', () => {
  it('its deadline aborts the call’s signal with “turn deadline passed”', async () => {
    // Only the timers are fake, following real time: the loopback calls run as always.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    const { hooks, signals, reached } = signalHook(true);
    harness = await createHarness({ hooks, overrides: { turnTimeoutMs: TURN_TIMEOUT_MS } });
    const call = harness.orchestrator.runCall({ request: conversation });
    await reached;
    await vi.advanceTimersByTimeAsync(TURN_TIMEOUT_MS);
    expect(await call).toMatchObject({ kind: 'error', errorKind: 'timeout' });
    expect(signals).toHaveLength(1);
    expect(signals[0]?.reason).toBeInstanceOf(Error);
    expect(signals[0]?.reason).toMatchObject({ message: 'turn deadline passed' });
    expect(harness.sent()).toEqual([]);
  });

  it('once the call has ended, its deadline and its caller’s abort no longer reach it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    const { hooks, signals } = signalHook(false);
    harness = await createHarness({ hooks, overrides: { turnTimeoutMs: TURN_TIMEOUT_MS } });
    const controller = new AbortController();
    const outcome = await harness.orchestrator.runCall({
      request: conversation,
      signal: controller.signal,
    });
    expect(outcome.kind).toBe('reply');
    expect(signals).toHaveLength(1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    controller.abort();
    await vi.advanceTimersByTimeAsync(TURN_TIMEOUT_MS + 1_000);
    expect(signals[0]?.aborted).toBe(false);
  });

  it('its listener on the caller’s signal is gone as soon as the abort reached it', async () => {
    const { hooks, signals, reached } = signalHook(true);
    harness = await createHarness({ hooks });
    const controller = new AbortController();
    const call = harness.orchestrator.runCall({ request: conversation, signal: controller.signal });
    await reached;
    // The call's one listener on its caller's signal (the hook holds the call's own signal).
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(signals[0]?.aborted).toBe(true);
    expect(await call).toMatchObject({ kind: 'aborted', errorKind: 'caller_abort' });
  });
});
