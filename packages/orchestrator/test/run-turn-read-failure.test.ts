// A transcript that cannot be read (an I/O error after the session was taken) ends the turn with
// the storage kind: one turn-start, one turn-end, nothing asked of the model, and the session's
// next turn reads again and answers. The turn has no view of the transcript to keep for the next
// one: a hand-made mutant that put it back anyway (run-turn.ts line 133, its `view !== undefined`
// made `true`: the undefined view handed to the cache, which throws) made `runTurn` reject, and
// fails this test.
import { StorageError } from '@keel/session-fence';
import type { SessionStorage } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('a transcript that cannot be read', () => {
  it('ends the turn error/storage with one start and one end; the next turn reads again', async () => {
    let failing = true;
    harness = await createHarness({
      script: [{ behavior: { type: 'ok', text: 'hi' }, match: { model: 'primary' } }],
      wrapStorage: (storage) => {
        const flaky = Object.create(storage) as SessionStorage;
        flaky.read = (sessionId, options) =>
          failing
            ? Promise.reject(new StorageError({ reason: 'io', operation: 'read', sessionId }))
            : storage.read(sessionId, options);
        return flaky;
      },
    });
    const failed = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(failed).toMatchObject({ kind: 'error', errorKind: 'storage' });
    expect(harness.sent()).toHaveLength(0);
    expect(harness.events.map((event) => event.type)).toEqual(['turn-start', 'turn-end']);
    expect(harness.events.at(-1)).toMatchObject({ type: 'turn-end', outcome: failed });

    failing = false;
    const answered = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello again' });
    expect(answered).toMatchObject({ kind: 'reply', text: 'hi' });
  });
});
