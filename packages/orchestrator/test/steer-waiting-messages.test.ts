import { createSessionFence, StorageError } from '@keel/session-fence';
import type { SessionStorage, TurnEvent } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, userTexts } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const MESSAGES = 8;

/**
 * A harness whose fences write through a storage that counts its appends (each one write and one
 * fsync in the file store) and can be told to fail them.
 */
async function countingHarness(queueMode: 'steer' | 'followup') {
  let counted: SessionStorage | undefined;
  const state = { appends: 0, fail: false };
  const h = await createHarness({
    defaultReply: () => 'one answer',
    wrapStorage: (storage) => {
      const wrapped = Object.create(storage) as SessionStorage;
      wrapped.append = (...args) => {
        state.appends += 1;
        if (state.fail)
          return Promise.reject(
            new StorageError({ reason: 'no_space', operation: 'append', sessionId: args[0] }),
          );
        return storage.append(...args);
      };
      counted = wrapped;
      return storage;
    },
    overrides: {
      queueMode,
      fences: (sessionId) => createSessionFence({ storage: counted!, sessionId }),
    },
  });
  return { h, state };
}

function send(h: Harness, seen?: Map<number, TurnEvent[]>) {
  return Array.from({ length: MESSAGES }, (_, index) =>
    h.orchestrator.runTurn({
      sessionId: 's1',
      input: `message ${index}`,
      clientMessageId: `c${index}`,
      ...(seen === undefined
        ? {}
        : {
            onEvent: (event: TurnEvent) => {
              const list = seen.get(index) ?? [];
              list.push(event);
              seen.set(index, list);
            },
          }),
    }),
  );
}

describe('steer: messages waiting for the session join the turn that starts', () => {
  it('concurrent messages make one turn: one model call sees them all, each stored once, each caller answered', async () => {
    const { h, state } = await countingHarness('steer');
    harness = h;
    const seen = new Map<number, TurnEvent[]>();
    const outcomes = await Promise.all(send(h, seen));

    // One turn, one model request, with every message in it.
    expect(h.sent()).toHaveLength(1);
    const body = JSON.stringify(h.mock.requests[0]!.body);
    for (let index = 0; index < MESSAGES; index += 1) expect(body).toContain(`message ${index}`);
    // Its first append carried every message and its start; its last the reply and its end.
    expect(state.appends).toBe(2);

    const entries = await h.entries('s1');
    const texts = userTexts(entries);
    expect([...texts].sort()).toEqual(
      Array.from({ length: MESSAGES }, (_, index) => `message ${index}`).sort(),
    );
    const [first, ...rest] = outcomes;
    expect(first).toMatchObject({ kind: 'reply', text: 'one answer', clientMessageId: 'c0' });
    expect(first!.steeredMessageIds).toHaveLength(MESSAGES - 1);
    rest.forEach((outcome, index) => {
      // Each caller's outcome names its own message, stored under its clientMessageId.
      expect(outcome).toMatchObject({
        kind: 'reply',
        text: 'one answer',
        turnId: first!.turnId,
        clientMessageId: `c${index + 1}`,
      });
      const stored = entries.find(
        (entry) => entry.type === 'message' && entry.messageId === outcome.messageId,
      );
      expect(stored).toMatchObject({ clientMessageId: `c${index + 1}` });
      expect(first!.steeredMessageIds).toContain(outcome.messageId);
      // Its events are the turn's that answered it.
      expect(seen.get(index + 1)?.at(-1)).toMatchObject({
        type: 'turn-end',
        turnId: first!.turnId,
      });
    });
    expect(
      h.events.filter((event) => event.type === 'message-queued').map((event) => event.messageId),
    ).toEqual(first!.steeredMessageIds);
    expect(h.events.filter((event) => event.type === 'turn-start')).toHaveLength(1);

    // A repeat of a folded message is answered from the transcript: no model call, no write.
    const again = await h.orchestrator.runTurn({
      sessionId: 's1',
      input: 'message 3',
      clientMessageId: 'c3',
    });
    expect(again).toMatchObject({ kind: 'reply', text: 'one answer', turnId: first!.turnId });
    expect(h.sent()).toHaveLength(1);
    expect(state.appends).toBe(2);
    expect(h.orchestrator.stats()).toEqual({ runningTurns: 0, queuedTurns: 0 });
  });

  it('behind a repeat (answered from the transcript, nothing written) the waiting messages make the next turn', async () => {
    const { h, state } = await countingHarness('steer');
    harness = h;
    const first = await h.orchestrator.runTurn({
      sessionId: 's1',
      input: 'one',
      clientMessageId: 'c0',
    });
    const [repeat, ...others] = await Promise.all([
      h.orchestrator.runTurn({ sessionId: 's1', input: 'one', clientMessageId: 'c0' }),
      h.orchestrator.runTurn({ sessionId: 's1', input: 'two', clientMessageId: 'c1' }),
      h.orchestrator.runTurn({ sessionId: 's1', input: 'three', clientMessageId: 'c2' }),
    ]);
    expect(repeat).toMatchObject({ kind: 'reply', turnId: first.turnId });
    expect(others[0]).toMatchObject({ kind: 'reply', clientMessageId: 'c1' });
    expect(others[1]).toMatchObject({
      kind: 'reply',
      clientMessageId: 'c2',
      turnId: others[0]!.turnId,
    });
    expect(h.sent()).toHaveLength(2);
    expect(state.appends).toBe(4);
    expect(userTexts(await h.entries('s1'))).toEqual(['one', 'two', 'three']);
  });

  it('the first caller leaving mid-turn does not end the turn the others wait on', async () => {
    const opener = new AbortController();
    harness = await createHarness({
      defaultReply: () => 'one answer',
      overrides: { queueMode: 'steer' },
      // The first caller leaves as the turn's model request is about to go out.
      hooks: {
        beforeModelCall: () => {
          opener.abort(new Error('the first caller left'));
          return undefined;
        },
      },
    });
    const h = harness;
    const first = h.orchestrator.runTurn({
      sessionId: 's1',
      input: 'first',
      signal: opener.signal,
    });
    const others = ['second', 'third'].map((input) =>
      h.orchestrator.runTurn({ sessionId: 's1', input }),
    );
    const [two, three] = await Promise.all(others);
    await first;
    expect(two).toMatchObject({ kind: 'reply', text: 'one answer' });
    expect(three).toMatchObject({ kind: 'reply', text: 'one answer', turnId: two!.turnId });
    expect(h.sent()).toHaveLength(1);
  });

  it('a failed write of the messages ends every caller with the storage error, and no model call', async () => {
    const { h, state } = await countingHarness('steer');
    harness = h;
    state.fail = true;
    const outcomes = await Promise.all(send(h));
    expect(h.sent()).toHaveLength(0);
    expect(new Set(outcomes.map((outcome) => outcome.messageId)).size).toBe(MESSAGES);
    outcomes.forEach((outcome, index) => {
      expect(outcome).toMatchObject({
        kind: 'error',
        errorKind: 'storage',
        clientMessageId: `c${index}`,
      });
    });
    // One write carried them all (and the turn's end could not be written after it either).
    expect(state.appends).toBeLessThanOrEqual(2);
  });

  it('announces the waiting messages only once their write is durable; a failed flush announces none', async () => {
    // The turn's opening write returns at once and its fsync is held here (`durable`), then failed.
    let failFlush: (error: Error) => void = () => undefined;
    const durable = new Promise<void>((_, reject) => {
      failFlush = reject;
    });
    durable.catch(() => undefined);
    let counted: SessionStorage | undefined;
    harness = await createHarness({
      defaultReply: () => 'one answer',
      wrapStorage: (storage) => {
        const wrapped = Object.create(storage) as SessionStorage;
        wrapped.append = async (sessionId, entries, options) => {
          const result = await storage.append(sessionId, entries, options);
          return options?.flush === 'deferred' ? { ...result, durable } : result;
        };
        counted = wrapped;
        return storage;
      },
      overrides: {
        queueMode: 'steer',
        fences: (sessionId) => createSessionFence({ storage: counted!, sessionId }),
      },
    });
    const h = harness;
    const seen = new Map<number, TurnEvent[]>();
    const outcomes = Promise.all(send(h, seen));
    // The model is asked while the flush is held (the overlap); nothing has gone out yet.
    await h.mock.waitForRequests(1);
    expect([...seen.values()].flat()).toEqual([]);
    failFlush(new StorageError({ reason: 'no_space', operation: 'append', sessionId: 's1' }));
    for (const outcome of await outcomes)
      expect(outcome).toMatchObject({ kind: 'error', errorKind: 'storage' });
    const queued = [...seen.values()].flat().filter((event) => event.type === 'message-queued');
    expect(queued).toEqual([]);
  });

  it('followup is unchanged: each message is answered by a turn of its own', async () => {
    const { h } = await countingHarness('followup');
    harness = h;
    const outcomes = await Promise.all(send(h));
    expect(h.sent()).toHaveLength(MESSAGES);
    expect(new Set(outcomes.map((outcome) => outcome.turnId)).size).toBe(MESSAGES);
  });
});
