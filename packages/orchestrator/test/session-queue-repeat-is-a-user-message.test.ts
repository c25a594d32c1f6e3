import type { TurnOutcome } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, userTexts } from './harness';

// A message that arrives while a turn runs is a repeat only of a user message the running turn
// holds with its clientMessageId: another entry carrying that id (an assistant message another
// writer stored) is no message of the client's, and the new message is written and answered.

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('session queue: a repeat is of a user message', () => {
  it('an assistant message with the same clientMessageId is not joined: the message is written and answered', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reached: () => void = () => undefined;
    const inCall = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let calls = 0;
    harness = await createHarness({
      beforeStreamEnds: async () => {
        calls += 1;
        if (calls !== 1) return;
        reached();
        await gate;
      },
    });
    const h = harness;
    await h.storage.append('s1', [
      {
        type: 'message',
        id: 'a1',
        messageId: 'a1',
        clientMessageId: 'c9',
        timestamp: new Date(h.clock.now()).toISOString(),
        role: 'assistant',
        content: [{ type: 'text', text: 'stored by another writer' }],
      },
    ]);
    const first = h.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
    await inCall;
    let second: Promise<TurnOutcome> | undefined;
    try {
      second = h.orchestrator.runTurn({ sessionId: 's1', input: 'hello', clientMessageId: 'c9' });
      // Queued behind the running turn (written through it first, or joined to a message it holds).
      while (h.orchestrator.stats().queuedTurns === 0)
        await new Promise((resolve) => setImmediate(resolve));
    } finally {
      release();
    }
    const [one, two] = await Promise.all([first, second!]);
    expect(one.kind).toBe('reply');
    expect(two).toMatchObject({ kind: 'reply', clientMessageId: 'c9' });
    expect(two.messageId).not.toBe('a1');
    expect(userTexts(await h.entries('s1'))).toEqual(['first', 'hello']);
    expect(h.sent()).toHaveLength(2);
  });
});
