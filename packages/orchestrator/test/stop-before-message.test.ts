// A stop that comes after the session is taken but before the turn's message is written: the
// message's write carries the caller's signal, so the fence writes nothing of it and no model is
// asked (run-turn.ts's opening append; found by a hand-made mutant that dropped the signal).
import type { SessionStorage } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, userTexts } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('a stop before the turn’s message is written', () => {
  it('writes no message and asks no model: aborted, one turn-end, the session free for the next turn', async () => {
    const controller = new AbortController();
    harness = await createHarness({
      // The turn reads the transcript once it holds the session; the caller stops right then.
      wrapStorage: (storage) => {
        const wrapped = Object.create(storage) as SessionStorage;
        wrapped.read = async (...args: Parameters<SessionStorage['read']>) => {
          const read = await storage.read(...args);
          controller.abort(new Error('the caller left'));
          return read;
        };
        return wrapped;
      },
    });
    const outcome = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'never written',
      signal: controller.signal,
    });
    expect(outcome).toMatchObject({ kind: 'aborted', errorKind: 'caller_abort' });
    expect(harness.sent()).toEqual([]);
    expect(userTexts(await harness.entries('s1'))).not.toContain('never written');
    expect(harness.events.filter((event) => event.type === 'turn-end')).toHaveLength(1);
    const next = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'again' });
    expect(next.kind).toBe('reply');
    expect(userTexts(await harness.entries('s1'))).toEqual(['again']);
  });
});
