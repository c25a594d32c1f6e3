// shutdown (create-orchestrator.ts): with no `graceMs` it lets running turns finish for 10 000 ms
// (line 234), and past the grace period it resolves only once every stopped turn and call has
// ended (line 246). Hand-made mutants: `graceMs && 10_000` (no grace at all when none is given)
// fails the first two tests, `?? 20_000` the second; waiting on `Promise.all([])` after the stop
// fails the third.
import type { TurnOutcome } from '@keel/spec';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
let release: () => void = () => undefined;
afterEach(async () => {
  vi.useRealTimers();
  release();
  await harness?.close();
  harness = undefined;
});

const GRACE_MS = 10_000;
const primary = { model: 'primary' };

describe('shutdown’s grace period', () => {
  it('with no graceMs, a turn is not stopped within the grace period and ends as it would have', async () => {
    // Only the timers are fake, following real time: the loopback calls run as always.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reached: () => void = () => undefined;
    const inCall = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const signals: AbortSignal[] = [];
    harness = await createHarness({
      hooks: {
        beforeModelCall({ signal }) {
          signals.push(signal);
          return undefined;
        },
      },
      beforeStreamEnds: async () => {
        reached();
        await gate;
      },
    });
    const turn = harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    await inCall;
    const stopping = harness.orchestrator.shutdown();
    // Half the grace period (fake time also follows real time: no boundary to the millisecond).
    await vi.advanceTimersByTimeAsync(GRACE_MS / 2);
    // Not stopped: the signal the turn's model call was given has not aborted.
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(false);
    release();
    expect((await turn).kind).toBe('reply');
    await stopping;
    expect(harness.orchestrator.stats()).toEqual({ runningTurns: 0, queuedTurns: 0 });
  });

  it('with no graceMs, a turn is stopped once 10 000 ms have passed', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    const signals: AbortSignal[] = [];
    harness = await createHarness({
      script: [{ behavior: { type: 'hang' }, match: primary }],
      hooks: {
        beforeModelCall({ signal }) {
          signals.push(signal);
          return undefined;
        },
      },
    });
    const turn = harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    await harness.mock.waitForRequests(1);
    const stopping = harness.orchestrator.shutdown();
    await vi.advanceTimersByTimeAsync(GRACE_MS / 2);
    expect(signals[0]?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(GRACE_MS / 2);
    expect(signals[0]?.aborted).toBe(true);
    await stopping;
    expect((await turn).kind).toBe('aborted');
  });

  it('past the grace period, shutdown resolves only once every stopped turn and call has ended', async () => {
    harness = await createHarness({
      script: [1, 2].map(() => ({ behavior: { type: 'hang' as const }, match: primary })),
    });
    const h = harness;
    const turn: Promise<TurnOutcome> = h.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    const call = h.orchestrator.runCall({
      request: { messages: [{ role: 'user', content: 'hi' }] },
      callId: 'call-1',
    });
    await h.mock.waitForRequests(2);
    await h.orchestrator.shutdown({ graceMs: 0 });
    // Nothing awaited since shutdown resolved: both had ended (sent their turn-end) by then.
    expect(
      h.events
        .filter((event) => event.type === 'turn-end')
        .map((e) => e.sessionId)
        .sort(),
    ).toEqual(['call-1', 's1']);
    expect(h.orchestrator.stats()).toEqual({ runningTurns: 0, queuedTurns: 0 });
    expect((await turn).kind).toBe('aborted');
    expect((await call).kind).toBe('aborted');
  });
});
