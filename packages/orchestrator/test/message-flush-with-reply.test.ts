// `RunTurnRequest.messageFlush: 'with-reply'` (DESIGN.md "Durable before acknowledged", run-turn.ts):
// the user's message is written unflushed and made durable by the turn's last write, one fsync a
// turn; nothing of the turn reaches a subscriber or `onEvent` before that write is durable, and
// when it fails only the turn's start and end go out, with the storage error. Hand-made mutants:
// the opening write's events let go at once (`if (opening)` for `if (opening && !withReply)`) fails
// the first test; `endFlushed = true` before the last write fails the second; `withReply` never
// set fails the first (the opening write deferred).
import { StorageError } from '@keel/session-fence';
import type { TurnEvent } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { describeWrite, fencesOver } from './fences-over';
import { foreignMessage } from './foreign-message';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Fences that record each write and the flush it asked for, then make it. */
function recordingFences(writes: Array<{ write: string; flush: string }>) {
  return fencesOver(
    () => harness as Harness,
    async (storage, sessionId, entries, options) => {
      writes.push({ write: describeWrite(entries), flush: options?.flush ?? 'before-return' });
      return storage.append(sessionId, entries, options);
    },
  );
}

describe("messageFlush: 'with-reply'", () => {
  it('writes the message unflushed and flushes it with the reply; no event goes out before', async () => {
    const writes: Array<{ write: string; flush: string; eventsSeen: number }> = [];
    const streamed: TurnEvent[] = [];
    harness = await createHarness({
      script: [{ behavior: { type: 'ok', text: 'hi there' }, match: { model: 'primary' } }],
      overrides: {
        fences: fencesOver(
          () => harness as Harness,
          async (storage, sessionId, entries, options) => {
            const eventsSeen = (harness as Harness).events.length + streamed.length;
            writes.push({
              write: describeWrite(entries),
              flush: options?.flush ?? 'before-return',
              eventsSeen,
            });
            return storage.append(sessionId, entries, options);
          },
        ),
      },
    });
    const outcome = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'hello',
      messageFlush: 'with-reply',
      onEvent: (event) => streamed.push(event),
    });
    expect(outcome).toMatchObject({ kind: 'reply', text: 'hi there' });
    // The session's first write creates the file (flushed whatever is asked): the second turn
    // shows the steady state.
    const second = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'again',
      messageFlush: 'with-reply',
      onEvent: (event) => streamed.push(event),
    });
    expect(second.kind).toBe('reply');
    expect(writes.slice(2)).toEqual([
      { write: 'message+turn-start', flush: 'with-next', eventsSeen: writes[2]?.eventsSeen },
      { write: 'message+turn-end', flush: 'before-return', eventsSeen: writes[2]?.eventsSeen },
    ]);
    // Nothing of the second turn went out before its last write: the events seen then were the
    // first turn's, and all of them.
    const firstTurnEvents = harness.events.filter((event) => event.turnId === outcome.turnId);
    expect(writes[3]?.eventsSeen).toBe(firstTurnEvents.length * 2);
    // Then every event of the turn, in order, to subscribers and to the caller alike.
    const secondEvents = harness.events.filter((event) => event.turnId === second.turnId);
    expect(secondEvents[0]?.type).toBe('turn-start');
    expect(secondEvents.some((event) => event.type === 'model-event')).toBe(true);
    expect(secondEvents.at(-1)).toMatchObject({ type: 'turn-end', outcome: second });
    expect(streamed.filter((event) => event.turnId === second.turnId)).toEqual(secondEvents);
  });

  it('a failed last write ends the turn with the storage error; only its start and end go out', async () => {
    let turns = 0;
    harness = await createHarness({
      script: [{ behavior: { type: 'ok', text: 'hi' }, match: { model: 'primary' } }],
      overrides: {
        fences: fencesOver(
          () => harness as Harness,
          async (storage, sessionId, entries, options) => {
            if (entries.some((entry) => entry.type === 'turn' && entry.phase === 'end')) {
              turns += 1;
              if (turns === 2)
                throw new StorageError({ reason: 'io', operation: 'append', sessionId });
            }
            return storage.append(sessionId, entries, options);
          },
        ),
      },
    });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
    harness.events.length = 0;
    const outcome = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'hello',
      messageFlush: 'with-reply',
    });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'storage' });
    expect(harness.events.map((event) => event.type)).toEqual(['turn-start', 'turn-end']);
    expect(harness.events.at(-1)).toMatchObject({ type: 'turn-end', outcome });
  });

  it('a takeover during the model call: resend (send it again), and only the turn’s start and end told', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'ok', text: 'a stale reply' }, match: { model: 'primary' } }],
      // Another gateway writes to the session while the model answers: the turn writes no end.
      beforeStreamEnds: async () => {
        const h = harness as Harness;
        if ((await h.entries('s1')).some((entry) => entry.id === 'foreign-1')) return;
        await h.storage.append('s1', [foreignMessage()]);
      },
    });
    const outcome = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'hello',
      messageFlush: 'with-reply',
    });
    expect(outcome).toMatchObject({ kind: 'resend', staleReply: 'a stale reply' });
    expect(harness.events.map((event) => event.type)).toEqual(['turn-start', 'turn-end']);
  });

  it('a message written with others waiting for the session is flushed on its own', async () => {
    const writes: Array<{ write: string; flush: string }> = [];
    harness = await createHarness({
      overrides: {
        queueMode: 'steer',
        fences: recordingFences(writes),
      },
    });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
    writes.length = 0;
    // The first opens the turn; the other two wait for it and are written with its message.
    const [first, second] = await Promise.all([
      harness.orchestrator.runTurn({ sessionId: 's1', input: 'one', messageFlush: 'with-reply' }),
      harness.orchestrator.runTurn({ sessionId: 's1', input: 'two', messageFlush: 'with-reply' }),
      harness.orchestrator.runTurn({ sessionId: 's1', input: 'three', messageFlush: 'with-reply' }),
    ]);
    expect(first?.steeredMessageIds).toHaveLength(2);
    expect(second?.kind).toBe('reply');
    expect(writes[0]).toEqual({ write: 'message+turn-start+message+message', flush: 'deferred' });
  });

  it('by default the message is flushed on its own, during the model call', async () => {
    const writes: Array<{ write: string; flush: string }> = [];
    harness = await createHarness({
      script: [{ behavior: { type: 'ok', text: 'hi' }, match: { model: 'primary' } }],
      overrides: {
        fences: recordingFences(writes),
      },
    });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello', messageFlush: 'own' });
    expect(writes.map((each) => each.flush)).toEqual([
      'deferred',
      'before-return',
      'deferred',
      'before-return',
    ]);
  });
});
