// The caller's stop reaches every storage call a turn waits on (STYLE.md: every async API takes
// the signal and passes it down; every wait wakes on abort): the transcript's read at the turn's
// start, and a tool step's two writes (the model's tool call, the tool's result). Here the store
// is slow (a stalled disk, a busy network volume): each call below answers only when its signal
// aborts. Hand-made mutants that left the signal out (run-turn.ts line 76 `{ signal }` → `{}`,
// line 254 and line 258 likewise) leave the turn waiting on the store after the stop: the test's
// `await` never resolves and the test fails at its time limit.
import { createSessionFence } from '@keel/session-fence';
import type { SessionStorage, TranscriptEntry, TurnOutcome } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
const stalled: Array<() => void> = [];
afterEach(async () => {
  // A call that got no signal would stall for ever: let it go, so that the harness can close.
  for (const release of stalled.splice(0)) release();
  await harness?.close();
  harness = undefined;
});

const lookup = { name: 'lookup', inputSchema: { type: 'object' } };
const toolCall = {
  behavior: { type: 'ok' as const, toolCalls: [{ id: 't1', name: 'lookup', input: {} }] },
  match: { model: 'primary' },
};

/** A store call that answers only once `signal` aborts (with its reason). */
function stall(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    const stop = () => reject(signal?.reason ?? new Error('released without a signal'));
    stalled.push(stop);
    signal?.addEventListener('abort', stop, { once: true });
  });
}

/** A latch: `reached` resolves once `mark` was called. */
function latch() {
  let mark: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => {
    mark = resolve;
  });
  return { reached, mark };
}

/** The turn's fences over the harness's store, where `stallsOn(entries)` appends stall. */
function stallingFences(
  h: () => Harness,
  stallsOn: (entries: readonly TranscriptEntry[]) => boolean,
  onStall: () => void,
) {
  return (sessionId: string) => {
    const storage = h().storage;
    const slow = Object.create(storage) as SessionStorage;
    slow.append = (id, entries, options) => {
      if (!stallsOn(entries)) return storage.append(id, entries, options);
      onStall();
      return stall(options?.signal);
    };
    return createSessionFence({ storage: slow, sessionId });
  };
}

const holds = (entries: readonly TranscriptEntry[], type: 'tool_use' | 'tool_result') =>
  entries.some(
    (entry) => entry.type === 'message' && entry.content.some((block) => block.type === type),
  );

/** Runs a turn, stops it once `reached` resolves, and gives its outcome. */
async function stopWhen(h: Harness, reached: Promise<void>): Promise<TurnOutcome> {
  const controller = new AbortController();
  const outcome = h.orchestrator.runTurn({
    sessionId: 's1',
    input: 'look',
    signal: controller.signal,
  });
  await reached;
  controller.abort();
  return outcome;
}

describe('the caller’s stop wakes the storage calls a turn waits on', () => {
  it('the transcript’s read at the turn’s start', async () => {
    const read = latch();
    harness = await createHarness({
      wrapStorage: (storage) => {
        const slow = Object.create(storage) as SessionStorage;
        slow.read = (_id, options) => {
          read.mark();
          return stall(options?.signal);
        };
        return slow;
      },
    });
    const outcome = await stopWhen(harness, read.reached);
    expect(outcome).toMatchObject({ kind: 'aborted', errorKind: 'caller_abort' });
    expect(harness.sent()).toHaveLength(0);
  });

  it('the write of the model’s tool call', async () => {
    const write = latch();
    harness = await createHarness({
      tools: { definitions: [lookup], run: async () => ({ content: 'found' }) },
      script: [toolCall],
      overrides: {
        fences: stallingFences(
          () => harness as Harness,
          (entries) => holds(entries, 'tool_use'),
          write.mark,
        ),
      },
    });
    const outcome = await stopWhen(harness, write.reached);
    expect(outcome).toMatchObject({ kind: 'aborted', errorKind: 'caller_abort' });
    expect(harness.sent()).toHaveLength(1);
  });

  it('the write of the tool’s result', async () => {
    const write = latch();
    harness = await createHarness({
      tools: { definitions: [lookup], run: async () => ({ content: 'found' }) },
      script: [toolCall],
      overrides: {
        fences: stallingFences(
          () => harness as Harness,
          (entries) => holds(entries, 'tool_result'),
          write.mark,
        ),
      },
    });
    const outcome = await stopWhen(harness, write.reached);
    expect(outcome).toMatchObject({ kind: 'aborted', errorKind: 'caller_abort' });
    expect(harness.sent()).toHaveLength(1);
  });
});
