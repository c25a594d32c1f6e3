import type { TurnOutcome } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

// shutdown and the session queue: within the grace period it waits for running turns to end;
// past it, it stops every running turn (the queue's `all`) and waits for them (its `idle`).

let harness: Harness | undefined;
let release: () => void = () => undefined;
afterEach(async () => {
  release();
  await harness?.close();
  harness = undefined;
});

/** A harness whose model calls wait for `release` at their end; resolves once one got there. */
async function gated(): Promise<{ h: Harness; inCall: Promise<void> }> {
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reached: () => void = () => undefined;
  const inCall = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const h = await createHarness({
    beforeStreamEnds: async () => {
      reached();
      await gate;
    },
  });
  harness = h;
  return { h, inCall };
}

describe('shutdown and running turns', () => {
  it('within the grace period: waits for the running turn to end, then resolves', async () => {
    const { h, inCall } = await gated();
    const order: string[] = [];
    const turn = h.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    void turn.then(() => order.push('turn'));
    await inCall;
    const stopped = h.orchestrator.shutdown({ graceMs: 600_000 });
    void stopped.then(() => order.push('shutdown'));
    // Nothing has ended while the model call is held.
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([]);
    release();
    await Promise.all([turn, stopped]);
    expect(order).toEqual(['turn', 'shutdown']);
    expect((await turn).kind).toBe('reply');
  });

  it('past the grace period: every running turn is stopped (aborted) and shutdown waits for it', async () => {
    // Both models hang without a byte: only shutdown's stop can end these turns.
    harness = await createHarness({
      script: [1, 2].map(() => ({
        behavior: { type: 'hang' as const },
        match: { model: 'primary' },
      })),
    });
    const h = harness;
    const turns: Promise<TurnOutcome>[] = ['s1', 's2'].map((sessionId) =>
      h.orchestrator.runTurn({ sessionId, input: 'hi' }),
    );
    await h.mock.waitForRequests(2);
    await h.orchestrator.shutdown({ graceMs: 0 });
    const outcomes = await Promise.all(turns);
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['aborted', 'aborted']);
    expect(h.orchestrator.stats()).toEqual({ runningTurns: 0, queuedTurns: 0 });
  });
});
