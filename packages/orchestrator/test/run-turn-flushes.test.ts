// "Durable before acknowledged" (DESIGN.md) at a turn's two ends (run-turn.ts's `append`): only
// the opening write (the user's message) defers its fsync, to overlap it with the first model
// call; the closing write (the reply and the turn's end) is durable before the outcome is given.
// And a message whose flush failed was never stored: the turn ends with the storage error even
// when a takeover was found meanwhile (a `resend` would tell the client its message is kept).
// Hand-made mutants: `opened = false` (every write "opening", so the closing write's fsync was
// deferred and the outcome given before it) fails the first test; `if (false)` for the failed
// flush (line 106: the takeover's `resend` given instead) fails the second.
import { StorageError } from '@keel/session-fence';
import { afterEach, describe, expect, it } from 'vitest';
import { describeWrite, fencesOver } from './fences-over';
import { foreignMessage } from './foreign-message';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await harness?.close();
  harness = undefined;
});

describe('a turn’s flushes', () => {
  it('only the message’s write defers its fsync: the turn’s end is durable when the outcome is given', async () => {
    const writes: Array<{ write: string; deferred: boolean }> = [];
    // The fsync of every deferred write but the first is held until the test lets it go.
    const unflushed = new Set<string>();
    harness = await createHarness({
      script: [{ behavior: { type: 'ok', text: 'hi' }, match: { model: 'primary' } }],
      overrides: {
        fences: fencesOver(
          () => harness as Harness,
          async (storage, sessionId, entries, options) => {
            const result = await storage.append(sessionId, entries, options);
            const write = describeWrite(entries);
            const deferred = options?.flush === 'deferred';
            writes.push({ write, deferred });
            if (!deferred) return result;
            if (writes.filter((each) => each.deferred).length === 1)
              return { ...result, durable: Promise.resolve() };
            unflushed.add(write);
            const durable = new Promise<void>((resolve) => {
              cleanups.push(resolve);
            });
            return { ...result, durable: durable.then(() => void unflushed.delete(write)) };
          },
        ),
      },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome.kind).toBe('reply');
    expect([...unflushed]).toEqual([]);
    expect(writes).toEqual([
      { write: 'message+turn-start', deferred: true },
      { write: 'message+turn-end', deferred: false },
    ]);
  });

  it('a failed flush of the message outranks a takeover found during the model call: error/storage, not resend', async () => {
    let failFlush: (error: Error) => void = () => undefined;
    const durable = new Promise<void>((_, reject) => {
      failFlush = reject;
    });
    durable.catch(() => undefined);
    harness = await createHarness({
      script: [{ behavior: { type: 'ok', text: 'hi' }, match: { model: 'primary' } }],
      overrides: {
        fences: fencesOver(
          () => harness as Harness,
          async (storage, sessionId, entries, options) => {
            const result = await storage.append(sessionId, entries, options);
            return options?.flush === 'deferred' ? { ...result, durable } : result;
          },
        ),
      },
      // While the model answers: another gateway writes to the session, and the fsync of the
      // turn's message fails.
      beforeStreamEnds: async () => {
        const h = harness as Harness;
        await h.storage.append('s1', [foreignMessage()]);
        failFlush(new StorageError({ reason: 'no_space', operation: 'append', sessionId: 's1' }));
      },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'storage' });
    expect(outcome).not.toHaveProperty('staleReply');
    // Of the turn's events only its start and end went out, the end with that outcome.
    expect(harness.events.map((event) => event.type)).toEqual(['turn-start', 'turn-end']);
    expect(harness.events.at(-1)).toMatchObject({ type: 'turn-end', outcome });
    expect(harness.sent()).toHaveLength(1);
  });
});
