import type { TurnEvent, TurnOutcome } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

// Whose events a caller's onEvent gets when its message is folded into a turn that is not its
// own (`steer`), and that a caller without onEvent puts no watcher on that turn at all.

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const lookup = {
  definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }],
  async run() {
    return { content: 'looked up' };
  },
};

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

/**
 * `steer`: a second message arrives during the first turn's first model call (which asks for a
 * tool) and is written through it, to be folded into its next call.
 */
async function steeredMidTurn(onEvent?: (event: TurnEvent) => void) {
  let second: Promise<TurnOutcome> | undefined;
  let calls = 0;
  const h = await createHarness({
    overrides: { queueMode: 'steer' },
    tools: lookup,
    script: [
      {
        behavior: { type: 'ok', toolCalls: [{ id: 'tool-1', name: 'lookup', input: {} }] },
        match: { model: 'primary' },
      },
    ],
    beforeStreamEnds: async () => {
      calls += 1;
      if (calls !== 1) return;
      second = h.orchestrator.runTurn({
        sessionId: 's1',
        input: 'and also this',
        ...(onEvent === undefined ? {} : { onEvent }),
      });
      await eventually(h, () => h.events.some((event) => event.type === 'message-queued'));
    },
  });
  harness = h;
  const first = await h.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
  return { h, first, steered: await second! };
}

describe('session queue: onEvent follows the turn a steered message is folded into', () => {
  it('written through the running turn: its caller sees that turn’s events to its end', async () => {
    const seen: TurnEvent[] = [];
    const { h, first, steered } = await steeredMidTurn((event) => seen.push(event));
    expect(steered).toMatchObject({ kind: 'reply', turnId: first.turnId });
    expect(first.steeredMessageIds).toEqual([steered.messageId]);
    // Events from its write on (its message-queued went out with the write): the folded call, the
    // turn's end.
    expect(seen.some((event) => event.type === 'attempt-start')).toBe(true);
    expect(seen.at(-1)).toMatchObject({ type: 'turn-end', turnId: first.turnId });
    expect(seen.every((event) => event.turnId === first.turnId)).toBe(true);
    expect(h.orchestrator.observerErrors).toBe(0);
  });

  it('without onEvent nothing watches the turn: no observer is called and none fails', async () => {
    const { h, first, steered } = await steeredMidTurn();
    expect(steered).toMatchObject({ kind: 'reply', turnId: first.turnId });
    expect(h.orchestrator.observerErrors).toBe(0);
  });

  it('joined with the next turn’s message, without onEvent: no observer fails either', async () => {
    harness = await createHarness({ overrides: { queueMode: 'steer' } });
    const h = harness;
    const outcomes = await Promise.all(
      ['one', 'two', 'three'].map((input) => h.orchestrator.runTurn({ sessionId: 's1', input })),
    );
    expect(new Set(outcomes.map((outcome) => outcome.turnId)).size).toBe(1);
    expect(outcomes[0]!.steeredMessageIds).toHaveLength(2);
    expect(h.sent()).toHaveLength(1);
    expect(h.orchestrator.observerErrors).toBe(0);
  });
});
