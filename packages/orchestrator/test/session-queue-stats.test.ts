import type { TurnOutcome } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, userTexts } from './harness';

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

describe('session queue: what stats and isRunning say while turns run and wait', () => {
  it('counts each running turn once and every turn queued behind one, across sessions', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reached!: () => void;
    const bothInCall = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let calls = 0;
    harness = await createHarness({
      // The first model call of each of the two sessions waits for the gate.
      beforeStreamEnds: async () => {
        calls += 1;
        if (calls > 2) return;
        if (calls === 2) reached();
        await gate;
      },
    });
    const h = harness;
    expect(h.orchestrator.stats()).toEqual({ runningTurns: 0, queuedTurns: 0 });
    const turns: Promise<TurnOutcome>[] = [
      h.orchestrator.runTurn({ sessionId: 's1', input: 'one' }),
      h.orchestrator.runTurn({ sessionId: 's2', input: 'other' }),
    ];
    await bothInCall;
    // From here on a failed check must not leave the gated turns hanging the harness' close.
    try {
      expect(h.orchestrator.stats()).toEqual({ runningTurns: 2, queuedTurns: 0 });
      expect(h.orchestrator.isRunning('s1')).toBe(true);
      expect(h.orchestrator.isRunning('s2')).toBe(true);
      expect(h.orchestrator.isRunning('s3')).toBe(false);

      turns.push(h.orchestrator.runTurn({ sessionId: 's1', input: 'two' }));
      turns.push(h.orchestrator.runTurn({ sessionId: 's1', input: 'three' }));
      await eventually(
        h,
        () => h.events.filter((event) => event.type === 'message-queued').length === 2,
      );
      // Each message is queued for its turn right after its write resolves: let that run.
      await new Promise((resolve) => setImmediate(resolve));
      expect(h.orchestrator.stats()).toEqual({ runningTurns: 2, queuedTurns: 2 });
    } finally {
      release();
    }
    const outcomes = await Promise.all(turns);
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['reply', 'reply', 'reply', 'reply']);
    expect(h.orchestrator.stats()).toEqual({ runningTurns: 0, queuedTurns: 0 });
    expect(h.orchestrator.isRunning('s1')).toBe(false);
    expect(h.orchestrator.isRunning('s2')).toBe(false);
    expect(userTexts(await h.entries('s1'))).toEqual(['one', 'two', 'three']);
  });
  it('a manual compaction is no running turn, nor is a turn that waits behind it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reached!: () => void;
    const compacting = new Promise<void>((resolve) => {
      reached = resolve;
    });
    harness = await createHarness({
      compactor: () => ({
        shouldCompact: () => false,
        async compact() {
          reached();
          await gate;
          return { status: 'skipped', reason: 'not-needed' };
        },
      }),
    });
    const h = harness;
    const compacted = h.orchestrator.compact('s1');
    await compacting;
    let turn: Promise<TurnOutcome> | undefined;
    try {
      expect(h.orchestrator.stats().runningTurns).toBe(0);
      turn = h.orchestrator.runTurn({ sessionId: 's1', input: 'after it' });
      expect(h.orchestrator.stats().runningTurns).toBe(0);
      expect(h.orchestrator.isRunning('s1')).toBe(false);
    } finally {
      release();
    }
    expect(await compacted).toEqual({ status: 'skipped', reason: 'not-needed' });
    expect((await turn!).kind).toBe('reply');
    expect(h.orchestrator.stats()).toEqual({ runningTurns: 0, queuedTurns: 0 });
  });
});
