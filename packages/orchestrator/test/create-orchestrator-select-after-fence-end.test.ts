// selectModel writes through the running turn's fence only while that fence holds (or keeps) the
// session (create-orchestrator.ts, `selectModel`). A turn's `turn-end` goes out while its fence
// still holds the session (the fence ends once the answer is out: session-queue.ts,
// `endAfterAnswer`); a selection made then is written through it. One made right after the answer,
// while that fence is still ending, takes the session with a fence of its own, once the ending
// fence lets it go. Hand-made mutants: the status check replaced by `true` appends through an
// ended fence, which refuses; the queue not waiting for the ending fence leaves it held.
import type { TurnEvent } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('selectModel while the session’s turn is ending', () => {
  it('at the turn’s end the selection is written through its fence; right after its answer, through a fence of its own', async () => {
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
    // The turn still counted as running when its end went out: the first case under test.
    expect(runningAtEnd).toBe(true);
    // Answered, the turn no longer runs; its fence is still ending: the second case.
    expect(h.orchestrator.isRunning('s1')).toBe(false);
    const after = h.orchestrator.selectModel('s1', 'anthropic/primary');
    expect(await selecting).toBe('selected');
    await after;
    const selections = (await h.entries('s1')).filter((entry) => entry.type === 'model-selection');
    expect(selections).toMatchObject([
      { model: 'backup/fallback', source: 'user' },
      { model: 'anthropic/primary', source: 'user' },
    ]);
    // The next turn starts on the model selected last.
    const next = await h.orchestrator.runTurn({ sessionId: 's1', input: 'again' });
    expect(next.model).toBe('anthropic/primary');
    expect(h.sent().map((request) => request.model)).toEqual(['primary', 'primary']);
  });
});
