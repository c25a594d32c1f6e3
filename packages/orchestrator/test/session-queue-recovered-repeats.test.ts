import type { TurnOutcome } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, userTexts } from './harness';

// A message being answered here (recovered after a crash, or submitted) is known by its
// clientMessageId whichever way it came: the other way joins that very answer, never a turn of
// its own that answers it again from the transcript.

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/**
 * A harness whose first model call waits until `release` (and says when it got there);
 * `readsDone()` resolves after the next transcript read that starts once it is asked for.
 */
async function gatedHarness() {
  let afterRead: (() => void) | undefined;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let inCall!: () => void;
  const called = new Promise<void>((resolve) => {
    inCall = resolve;
  });
  let calls = 0;
  const h = await createHarness({
    wrapStorage: (storage) => ({
      ...storage,
      read: async (...args: Parameters<typeof storage.read>) => {
        const read = await storage.read(...args);
        afterRead?.();
        return read;
      },
    }),
    beforeStreamEnds: async () => {
      calls += 1;
      if (calls !== 1) return;
      inCall();
      await gate;
    },
  });
  const readsDone = () =>
    new Promise<void>((resolve) => {
      afterRead = resolve;
    });
  return { h, called, release, readsDone };
}

const turnStarts = (h: Harness) => h.events.filter((event) => event.type === 'turn-start');

describe('session queue: a message on its way here is joined by its clientMessageId', () => {
  it('a retry during the recovered turn gets the recovered answer itself: one turn, one request', async () => {
    const { h, called, release } = await gatedHarness();
    harness = h;
    const stamp = new Date(h.clock.now()).toISOString();
    // A crash left the message unanswered, its turn started.
    await h.storage.append('s1', [
      {
        type: 'message',
        id: 'm1',
        messageId: 'm1',
        clientMessageId: 'c1',
        timestamp: stamp,
        role: 'user',
        content: [{ type: 'text', text: 'first' }],
      },
      { type: 'turn', id: 'ts', turnId: 't0', phase: 'start', messageId: 'm1', timestamp: stamp },
    ]);
    const recovered = h.orchestrator.recover('s1');
    await called;
    let retry: Promise<TurnOutcome>;
    try {
      retry = h.orchestrator.runTurn({ sessionId: 's1', input: 'first', clientMessageId: 'c1' });
    } finally {
      release();
    }
    const [outcomes, again] = await Promise.all([recovered, retry]);
    expect(outcomes).toHaveLength(1);
    expect(again).toBe(outcomes[0]);
    expect(again).toMatchObject({ kind: 'reply', messageId: 'm1', clientMessageId: 'c1' });
    expect(turnStarts(h)).toHaveLength(1);
    expect(h.sent()).toHaveLength(1);
    expect(userTexts(await h.entries('s1'))).toEqual(['first']);
  });

  it('recover during a submitted turn joins that turn’s answer: no second turn for its message', async () => {
    const { h, called, release, readsDone } = await gatedHarness();
    harness = h;
    const first = h.orchestrator.runTurn({
      sessionId: 's1',
      input: 'first',
      clientMessageId: 'c1',
    });
    await called;
    let recovered: Promise<TurnOutcome[]>;
    try {
      // The message is in the transcript, its turn started and not ended: recover finds it.
      const read = readsDone();
      recovered = h.orchestrator.recover('s1');
      // Recover has read the transcript and asked for the message's answer while the turn runs.
      await read;
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      release();
    }
    const [answered, outcomes] = await Promise.all([first, recovered]);
    expect(outcomes.map((outcome) => outcome.messageId)).toEqual([answered.messageId]);
    expect(outcomes[0]).toBe(answered);
    expect(turnStarts(h)).toHaveLength(1);
    expect(h.sent()).toHaveLength(1);
  });
});
