import { createSessionFence, createTranscriptStore } from '@keel/session-fence';
import type { MessageEntry, SessionStorage, TurnOutcome } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

// A queued message another gateway wrote, adopted by the running turn, whose answer is already on
// its way here (recover queued a turn for it by its clientMessageId): no second turn runs for it.

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('session queue: an adopted message already on its way here', () => {
  it('gets no turn of its own: one turn per message, each its own fence', async () => {
    let base: SessionStorage | undefined;
    let fences = 0;
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
      wrapStorage: (storage) => {
        base = storage;
        return storage;
      },
      overrides: {
        fences: (sessionId) => {
          fences += 1;
          return createSessionFence({ storage: base!, sessionId });
        },
      },
      beforeStreamEnds: async () => {
        calls += 1;
        if (calls !== 1) return;
        reached();
        await gate;
      },
    });
    const h = harness;
    const first = h.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
    await inCall;
    let recovered: Promise<TurnOutcome[]> | undefined;
    try {
      // Another gateway queues a message (a minute old) for the running turn…
      const queued: MessageEntry = {
        type: 'message',
        id: 'q1',
        messageId: 'q1',
        clientMessageId: 'c-q1',
        timestamp: new Date(h.clock.now() - 60_000).toISOString(),
        role: 'user',
        content: [{ type: 'text', text: 'queued elsewhere' }],
      };
      const other = createTranscriptStore({ sessionsDir: h.sessionsDir, fsync: false });
      await other.turnClaims?.appendQueued('s1', [queued]);
      // …and recover, finding it unanswered, queues its turn here before the running turn adopts it.
      recovered = h.orchestrator.recover('s1', { minAgeMs: 30_000 });
      while (h.orchestrator.stats().queuedTurns === 0)
        await new Promise((resolve) => setImmediate(resolve));
    } finally {
      release();
    }
    const [one, answers] = await Promise.all([first, recovered!]);
    expect(one.kind).toBe('reply');
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({ kind: 'reply', messageId: 'q1', clientMessageId: 'c-q1' });
    // The running turn took it in (it arrived there), and left it to recover's turn.
    expect(
      h.events.some(
        (event) =>
          event.type === 'message-queued' &&
          event.messageId === 'q1' &&
          event.turnId === one.turnId,
      ),
    ).toBe(true);
    await h.orchestrator.shutdown();
    expect(fences).toBe(2);
    expect(h.sent()).toHaveLength(2);
  });
});
