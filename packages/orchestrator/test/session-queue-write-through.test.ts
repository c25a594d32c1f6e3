import { createSessionFence, StorageError } from '@keel/session-fence';
import type { SessionFence, SessionStorage, TranscriptEntry, TurnOutcome } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, userTexts } from './harness';

// A message that arrives while a turn runs (`followup`) is written through that turn's fence: with
// its caller's signal and nothing else in the write's options, stored with its clientMessageId;
// when that write fails the message is not the running turn's (no `message-queued`) and gets a
// turn of its own, which writes it.

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

interface Append {
  texts: string[];
  entries: readonly TranscriptEntry[];
  options: unknown;
}

/**
 * A harness whose first model call waits for `release` (`inCall` once it got there), over fences
 * that record every append and refuse the appends `refuse` picks (before the store sees them);
 * `holdNextRead` holds the orchestrator's next transcript read until `open`.
 */
async function recordingHarness(refuse: (texts: string[]) => boolean = () => false) {
  let base: SessionStorage | undefined;
  const appends: Append[] = [];
  const record = (fence: SessionFence): SessionFence => {
    const append: SessionFence['append'] = (entries, options) => {
      const texts = userTexts(entries);
      appends.push({ texts, entries, options });
      if (refuse(texts))
        return Promise.reject(
          new StorageError({ reason: 'no_space', operation: 'append', sessionId: fence.sessionId }),
        );
      return fence.append(entries, options);
    };
    return new Proxy(fence, {
      get(target, key) {
        if (key === 'append') return append;
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reached: () => void = () => undefined;
  const inCall = new Promise<void>((resolve) => {
    reached = resolve;
  });
  let calls = 0;
  let held: { gate: Promise<void>; reached: () => void } | undefined;
  const holdNextRead = () => {
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let reached: () => void = () => undefined;
    const atRead = new Promise<void>((resolve) => {
      reached = resolve;
    });
    held = { gate, reached };
    return { reached: atRead, open };
  };
  const h = await createHarness({
    wrapStorage: (storage) => {
      base = storage;
      return {
        ...storage,
        read: async (...args: Parameters<typeof storage.read>) => {
          const hold = held;
          held = undefined;
          hold?.reached();
          await hold?.gate;
          return storage.read(...args);
        },
      };
    },
    overrides: {
      fences: (sessionId) => record(createSessionFence({ storage: base!, sessionId })),
    },
    beforeStreamEnds: async () => {
      calls += 1;
      if (calls !== 1) return;
      reached();
      await gate;
    },
  });
  harness = h;
  return { h, appends, inCall, release, holdNextRead };
}

/** Resolves once `count` `message-queued` events were recorded (checked as each one arrives). */
function queued(h: Harness, count: number): Promise<void> {
  const done = () => h.events.filter((event) => event.type === 'message-queued').length >= count;
  return new Promise((resolve) => {
    if (done()) return resolve();
    const off = h.orchestrator.subscribe(() => {
      if (!done()) return;
      off();
      resolve();
    });
  });
}

describe('session queue: a message written through the running turn', () => {
  it('goes with its caller’s signal, or with no signal member at all, and keeps its clientMessageId', async () => {
    const { h, appends, inCall, release } = await recordingHarness();
    const first = h.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
    await inCall;
    const caller = new AbortController();
    let later: Promise<TurnOutcome>[] = [];
    try {
      later = [
        h.orchestrator.runTurn({
          sessionId: 's1',
          input: 'second',
          clientMessageId: 'c2',
          signal: caller.signal,
        }),
        h.orchestrator.runTurn({ sessionId: 's1', input: 'third' }),
      ];
      await queued(h, 2);
    } finally {
      release();
    }
    const [one, two, three] = await Promise.all([first, ...later]);
    expect([one, two, three].map((outcome) => outcome?.kind)).toEqual(['reply', 'reply', 'reply']);
    const second = appends.find((append) => append.texts.join() === 'second');
    const third = appends.find((append) => append.texts.join() === 'third');
    // Each written alone, through the running turn.
    expect(second?.entries).toHaveLength(1);
    expect(third?.entries).toHaveLength(1);
    expect(second?.options).toStrictEqual({ signal: caller.signal });
    expect(third?.options).toStrictEqual({});
    expect(second?.entries[0]).toMatchObject({ role: 'user', clientMessageId: 'c2' });
    expect(third?.entries[0]).not.toHaveProperty('clientMessageId');
    // Stored with it: a repeat after the answer gets the stored outcome, no model call.
    const again = await h.orchestrator.runTurn({
      sessionId: 's1',
      input: 'second',
      clientMessageId: 'c2',
    });
    expect(again).toMatchObject({ kind: 'reply', messageId: two!.messageId, turnId: two!.turnId });
    expect(h.sent()).toHaveLength(3);
  });

  it('that fails: not the running turn’s, it gets a turn of its own that writes it', async () => {
    let refused = 0;
    const { h, inCall, release } = await recordingHarness((texts) => {
      if (texts.join() !== 'second' || refused > 0) return false;
      refused += 1;
      return true;
    });
    const first = h.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
    await inCall;
    let second: Promise<TurnOutcome> | undefined;
    try {
      second = h.orchestrator.runTurn({ sessionId: 's1', input: 'second' });
      // Its write is refused at once; it is then queued for a turn of its own.
      await new Promise((resolve) => setImmediate(resolve));
      expect(h.orchestrator.stats()).toEqual({ runningTurns: 1, queuedTurns: 1 });
    } finally {
      release();
    }
    const [one, two] = await Promise.all([first, second!]);
    expect(refused).toBe(1);
    expect(one.kind).toBe('reply');
    expect(two.kind).toBe('reply');
    expect(two.turnId).not.toBe(one.turnId);
    expect(h.events.filter((event) => event.type === 'message-queued')).toEqual([]);
    expect(userTexts(await h.entries('s1'))).toEqual(['first', 'second']);
    expect(h.sent()).toHaveLength(2);
  });
  it('is not tried while the running turn does not hold the session yet: its own turn writes it, once', async () => {
    const { h, appends, release } = await recordingHarness();
    release();
    // Another holder keeps the session: the first turn runs, waiting for the lease.
    const other = await h.storage.lease('s1');
    let first: Promise<TurnOutcome> | undefined;
    let second: Promise<TurnOutcome> | undefined;
    try {
      first = h.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
      await new Promise((resolve) => setImmediate(resolve));
      expect(h.orchestrator.isRunning('s1')).toBe(true);
      second = h.orchestrator.runTurn({ sessionId: 's1', input: 'second' });
      await new Promise((resolve) => setImmediate(resolve));
      expect(appends).toEqual([]);
    } finally {
      await other.release();
    }
    const [one, two] = await Promise.all([first!, second!]);
    expect([one.kind, two.kind]).toEqual(['reply', 'reply']);
    expect(two.turnId).not.toBe(one.turnId);
    expect(appends.filter((append) => append.texts.includes('second'))).toHaveLength(1);
    expect(userTexts(await h.entries('s1'))).toEqual(['first', 'second']);
  });
  it('without a clientMessageId, is written at once, even while the running turn still reads the transcript', async () => {
    const { h, appends, release, holdNextRead } = await recordingHarness();
    release();
    const read = holdNextRead();
    const first = h.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
    await read.reached;
    let second: Promise<TurnOutcome> | undefined;
    try {
      second = h.orchestrator.runTurn({ sessionId: 's1', input: 'second' });
      // Handed to the running turn's fence before runTurn returned: nothing waited for the read.
      expect(appends.map((append) => append.texts)).toEqual([['second']]);
    } finally {
      read.open();
    }
    const [one, two] = await Promise.all([first, second!]);
    expect([one.kind, two.kind]).toEqual(['reply', 'reply']);
    expect(two.turnId).not.toBe(one.turnId);
    expect(appends.filter((append) => append.texts.includes('second'))).toHaveLength(1);
    expect([...userTexts(await h.entries('s1'))].sort()).toEqual(['first', 'second']);
  });
});
