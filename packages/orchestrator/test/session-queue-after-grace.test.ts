import type { TurnOutcome } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

// Past shutdown's grace period a turn still queued behind the running one starts stopped: it ends
// `aborted` with the restart notice and never calls the model (session-queue.ts, `runtime.stopping`).

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Resolves once `predicate` holds for a recorded event (checked as each one arrives). */
function eventually(h: Harness, predicate: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (predicate()) return resolve();
    const off = h.orchestrator.subscribe(() => {
      if (!predicate()) return;
      off();
      resolve();
    });
  });
}

describe('session queue: a turn that starts after the grace period', () => {
  it('is stopped at once: aborted, no model request of its own', async () => {
    // Only the first model call hangs; a second one would be answered at once.
    harness = await createHarness({
      script: [{ behavior: { type: 'hang' }, match: { model: 'primary' } }],
    });
    const h = harness;
    const first = h.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
    await h.mock.waitForRequests(1);
    // followup: the second message is written through the running turn and queued behind it.
    const second: Promise<TurnOutcome> = h.orchestrator.runTurn({
      sessionId: 's1',
      input: 'second',
    });
    await eventually(h, () => h.events.some((event) => event.type === 'message-queued'));
    // It is queued for its turn right after its write resolves: let that run.
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.orchestrator.stats()).toEqual({ runningTurns: 1, queuedTurns: 1 });
    await h.orchestrator.shutdown({ graceMs: 0 });
    const [one, two] = await Promise.all([first, second]);
    expect(one.kind).toBe('aborted');
    expect(two.kind).toBe('aborted');
    expect(two.turnId).not.toBe(one.turnId);
    expect(h.sent()).toHaveLength(1);
  });
});
