import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSessionFence, createTranscriptStore } from '@keel/session-fence';
import type { MessageEntry, TurnOutcome } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { transcript } from '../test/transcript-builder';
import { transcriptFacts } from './transcript-facts';
import { createTurnEmitter, type TurnEmitter } from './turn-emitter';
import type { LiveTurn } from './turn-runtime';
import { createWaitingMessages } from './waiting-messages';

// What becomes of each message that waits for a session's next turn (`steer`), rule by rule:
// the queue's tests reach these only through whole turns, where one rule can hide another.

/** A turn as the session queue hands it over; nothing here writes through its fence. */
function liveTurn(turnId: string): LiveTurn {
  const storage = createTranscriptStore({ sessionsDir: join(tmpdir(), 'keel-waiting-unused') });
  return {
    sessionId: 's1',
    turnId,
    messageId: `${turnId}-message`,
    clientMessageId: undefined,
    fence: createSessionFence({ storage, sessionId: 's1' }),
    entries: [],
    entriesFrom: 0,
    facts: undefined,
    arrived: [],
    folded: new Set(),
    requestedModel: undefined,
    controller: new AbortController(),
    stopReason: undefined,
    finished: false,
    prepared: Promise.resolve(),
    markPrepared: () => undefined,
  };
}

function message(messageId: string, clientMessageId?: string): MessageEntry {
  return {
    type: 'message',
    id: messageId,
    messageId,
    role: 'user',
    content: [{ type: 'text', text: messageId }],
    timestamp: '2026-01-01T00:00:00.000Z',
    ...(clientMessageId === undefined ? {} : { clientMessageId }),
  };
}

function outcomeOf(turnId: string): TurnOutcome {
  return { kind: 'reply', text: 'done', messageId: `${turnId}-message`, turnId, attempts: [] };
}

/** Waiting messages whose written callback records each call. */
function waitingWithLog() {
  const calls: Array<{ messages: string[]; turnId: string; emitter: TurnEmitter }> = [];
  const waiting = createWaitingMessages((messages, turn, emitter) => {
    calls.push({
      messages: messages.map((entry) => entry.messageId),
      turnId: turn.turnId,
      emitter,
    });
  });
  return { waiting, calls };
}

/** What a joined promise has settled to so far (`pending` if nothing yet). */
async function settled(joined: Promise<unknown> | undefined): Promise<unknown> {
  if (joined === undefined) return 'not joined';
  return Promise.race([joined, new Promise((resolve) => setImmediate(() => resolve('pending')))]);
}

const noFacts = transcriptFacts([]);

describe('waiting messages: joined before the turn takes them, written with its message', () => {
  it('builds each message only when the turn takes it, in the order they joined', async () => {
    const { waiting } = waitingWithLog();
    const built: string[] = [];
    const build = (id: string) => () => {
      built.push(id);
      return message(id);
    };
    const a = waiting.join(build('m1'), {});
    const b = waiting.join(build('m2'), {});
    expect(built).toEqual([]);
    expect(await settled(a)).toBe('pending');
    const taken = waiting.take(noFacts, liveTurn('t1'));
    expect(taken.map((entry) => entry.messageId)).toEqual(['m1', 'm2']);
    expect(built).toEqual(['m1', 'm2']);
    // Taken, not written yet: still waiting for the write.
    expect(await settled(b)).toBe('pending');
  });

  it('once the turn has taken them, or they are closed, a new message cannot join', () => {
    const taken = waitingWithLog().waiting;
    taken.take(noFacts, liveTurn('t1'));
    expect(taken.join(() => message('m1'), {})).toBeUndefined();
    const closed = waitingWithLog().waiting;
    closed.close();
    expect(closed.join(() => message('m1'), {})).toBeUndefined();
  });

  it('leaves a repeat of a message the transcript holds, and one whose caller already left', async () => {
    const { waiting } = waitingWithLog();
    const stored = { ...(transcript().user('earlier', 'm0').entries[0] as MessageEntry) };
    const facts = transcriptFacts([{ ...stored, clientMessageId: 'c-repeat' }]);
    const gone = new AbortController();
    gone.abort(new Error('left'));
    const staying = new AbortController();
    const repeat = waiting.join(() => message('m1', 'c-repeat'), { clientMessageId: 'c-repeat' });
    const left = waiting.join(() => message('m2'), { signal: gone.signal });
    const fresh = waiting.join(() => message('m3', 'c-new'), {
      clientMessageId: 'c-new',
      signal: staying.signal,
    });
    const plain = waiting.join(() => message('m4'), {});
    const taken = waiting.take(facts, liveTurn('t1'));
    expect(taken.map((entry) => entry.messageId)).toEqual(['m3', 'm4']);
    expect(await settled(repeat)).toEqual({ type: 'left' });
    expect(await settled(left)).toEqual({ type: 'left' });
    expect(await settled(fresh)).toBe('pending');
    expect(await settled(plain)).toBe('pending');
  });

  it('written: announced once through the turn’s emitter, each caller told its message, turn and outcome', async () => {
    const { waiting, calls } = waitingWithLog();
    const outcome = Promise.resolve(outcomeOf('t1'));
    waiting.answeredBy(outcome);
    const a = waiting.join(() => message('m1'), {});
    const b = waiting.join(() => message('m2'), {});
    const turn = liveTurn('t1');
    waiting.take(noFacts, turn);
    const emitter = createTurnEmitter([]);
    waiting.written(emitter);
    expect(calls).toEqual([{ messages: ['m1', 'm2'], turnId: 't1', emitter }]);
    expect(calls[0]!.emitter).toBe(emitter);
    const joinedA = await a!;
    const joinedB = await b!;
    expect(joinedA).toEqual({ type: 'written', message: message('m1'), turnId: 't1', outcome });
    expect(joinedB).toMatchObject({ type: 'written', message: message('m2'), turnId: 't1' });
    // The very outcome the queue handed over, not a copy or a promise of its own.
    expect(joinedA.type === 'written' && joinedA.outcome).toBe(outcome);
    // A second `written` (or a close after it) has nothing left to announce or settle.
    waiting.written(emitter);
    waiting.close();
    expect(calls).toHaveLength(1);
  });

  it('written with nothing taken (all left, or none joined) announces nothing', async () => {
    const none = waitingWithLog();
    none.waiting.take(noFacts, liveTurn('t1'));
    none.waiting.written(createTurnEmitter([]));
    expect(none.calls).toEqual([]);

    const allLeft = waitingWithLog();
    const gone = new AbortController();
    gone.abort(new Error('left'));
    const joined = allLeft.waiting.join(() => message('m1'), { signal: gone.signal });
    allLeft.waiting.take(noFacts, liveTurn('t1'));
    allLeft.waiting.written(createTurnEmitter([]));
    expect(allLeft.calls).toEqual([]);
    expect(await joined).toEqual({ type: 'left' });

    // A turn that never took them (it ended before writing its message) announces nothing either.
    const untaken = waitingWithLog();
    const waitingStill = untaken.waiting.join(() => message('m1'), {});
    untaken.waiting.written(createTurnEmitter([]));
    expect(untaken.calls).toEqual([]);
    expect(await settled(waitingStill)).toBe('pending');
  });

  it('close: a message never taken is left; one taken but never written failed, with the turn’s outcome', async () => {
    const { waiting, calls } = waitingWithLog();
    const outcome = Promise.resolve(outcomeOf('t1'));
    waiting.answeredBy(outcome);
    const early = waiting.join(() => message('m1'), {});
    waiting.take(noFacts, liveTurn('t1'));
    waiting.close();
    const failed = await early!;
    expect(failed).toEqual({ type: 'failed', message: message('m1'), outcome });
    expect(failed.type === 'failed' && failed.outcome).toBe(outcome);
    // The failed write is not announced, and a later `written` has nothing to announce.
    waiting.written(createTurnEmitter([]));
    expect(calls).toEqual([]);

    const untaken = waitingWithLog().waiting;
    const late = untaken.join(() => message('m2'), {});
    untaken.close();
    expect(await late).toEqual({ type: 'left' });
  });

  it('without answeredBy the written outcome never settles (it is the queue’s to give)', async () => {
    const { waiting } = waitingWithLog();
    const joined = waiting.join(() => message('m1'), {});
    waiting.take(noFacts, liveTurn('t1'));
    waiting.written(createTurnEmitter([]));
    const result = await joined!;
    expect(result.type).toBe('written');
    if (result.type === 'written') expect(await settled(result.outcome)).toBe('pending');
  });
});
