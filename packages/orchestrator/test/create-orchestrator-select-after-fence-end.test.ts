// selectModel writes through the running turn's fence only while that fence holds (or keeps) the
// session (create-orchestrator.ts, line 171). A turn is still "running" for a moment after its
// fence ended (its `turn-end` goes out before the queue lets it go): a selection made then takes
// the session with a fence of its own. Hand-made mutant: the status check replaced by `true`
// appends through the ended fence, which refuses, and selectModel rejects.
import type { TurnEvent } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('selectModel while the session’s turn is ending', () => {
  it('after the turn’s fence ended, the selection is written through a fence of its own', async () => {
    harness = await createHarness();
    const h = harness;
    let selecting: Promise<unknown> | undefined;
    let runningAtEnd: boolean | undefined;
    h.orchestrator.subscribe((event: TurnEvent) => {
      if (event.type !== 'turn-end' || selecting !== undefined) return;
      runningAtEnd = h.orchestrator.isRunning('s1');
      selecting = h.orchestrator.selectModel('s1', 'backup/fallback').then(
        () => 'selected',
        (error: unknown) => error,
      );
    });
    expect((await h.orchestrator.runTurn({ sessionId: 's1', input: 'hello' })).kind).toBe('reply');
    // The turn still counted as running when its end went out: the case under test.
    expect(runningAtEnd).toBe(true);
    expect(await selecting).toBe('selected');
    const selections = (await h.entries('s1')).filter((entry) => entry.type === 'model-selection');
    expect(selections).toMatchObject([{ model: 'backup/fallback', source: 'user' }]);
    // The next turn starts on the selected model.
    const next = await h.orchestrator.runTurn({ sessionId: 's1', input: 'again' });
    expect(next.model).toBe('backup/fallback');
    expect(h.sent().map((request) => request.model)).toEqual(['primary', 'fallback']);
  });
});
