import type { TurnOutcome } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { foreignMessage } from './foreign-message';
import { createHarness, type Harness, userTexts } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const primary = { model: 'primary' };

/** Resolves once `predicate` holds for a recorded event (checked as each one arrives). */
function eventually(h: Harness, predicate: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (predicate()) return resolve();
    const off = h.orchestrator.subscribe(() => {
      if (!predicate()) return;
      off();
      resolve();
    });
  });
}

describe('sessions: takeover, busy sessions, stops, queues, repeats', () => {
  it('a foreign write during the model call: resend after 1 request, no other candidate, the reply kept as staleReply', async () => {
    harness = await createHarness({
      beforeStreamEnds: async () => {
        const other = harness!.storage;
        await other.append('s1', [foreignMessage()]);
      },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'resend', errorKind: 'session_takeover' });
    expect(outcome.staleReply).toContain('hello');
    expect(harness.sent()).toHaveLength(1);
    expect(harness.decisions()).toEqual(['resend']);
    const entries = await harness.entries('s1');
    expect(userTexts(entries)).toEqual(['hello', 'written by another gateway']);
    expect(entries.some((entry) => entry.type === 'message' && entry.role === 'assistant')).toBe(
      false,
    );
  });

  it('a session another holder keeps busy: coordination error after the lock timeout, zero requests', async () => {
    harness = await createHarness({ overrides: { lockTimeoutMs: 300 } });
    const other = await harness.storage.lease('s1');
    try {
      const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
      expect(outcome).toMatchObject({ kind: 'error', errorKind: 'coordination' });
      expect(harness.sent()).toEqual([]);
      expect(harness.events.filter((event) => event.type === 'turn-end')).toHaveLength(1);
    } finally {
      await other.release();
    }
  });

  it('a caller abort mid-stream: aborted, no retry, no fallback, the session let go', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'stall', afterChunks: 1 }, match: primary }],
    });
    const controller = new AbortController();
    const off = harness.orchestrator.subscribe((event) => {
      if (event.type === 'model-event') controller.abort();
    });
    const outcome = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'hello',
      signal: controller.signal,
    });
    off();
    expect(outcome).toMatchObject({ kind: 'aborted', errorKind: 'caller_abort' });
    expect(harness.sent()).toHaveLength(1);
    expect(harness.decisions()).toEqual(['final']);
    const lease = await harness.storage.lease('s1', { timeoutMs: 1_000 });
    await lease.release();
    const entries = await harness.entries('s1');
    expect(entries.at(-1)).toMatchObject({ type: 'turn', phase: 'end', outcome: 'aborted' });
  });

  it('a repeated clientMessageId returns the stored outcome and never runs a second turn', async () => {
    harness = await createHarness();
    const first = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'hi',
      clientMessageId: 'c-1',
    });
    const again = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'hi',
      clientMessageId: 'c-1',
    });
    expect(again).toMatchObject({
      kind: 'reply',
      text: first.text,
      messageId: first.messageId,
      turnId: first.turnId,
      clientMessageId: 'c-1',
    });
    expect(harness.sent()).toHaveLength(1);
    expect(userTexts(await harness.entries('s1'))).toEqual(['hi']);
  });

  it('the same clientMessageId twice at once: one turn, one outcome for both', async () => {
    harness = await createHarness();
    const [a, b] = await Promise.all([
      harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi', clientMessageId: 'c-2' }),
      harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi', clientMessageId: 'c-2' }),
    ]);
    expect(a).toBe(b);
    expect(harness.sent()).toHaveLength(1);
  });

  it('followup: a message arriving mid-turn is written at once, the running turn is not taken over, the next turn answers it', async () => {
    let second: Promise<TurnOutcome> | undefined;
    harness = await createHarness({
      beforeStreamEnds: async () => {
        if (second !== undefined) return;
        second = harness!.orchestrator.runTurn({ sessionId: 's1', input: 'second' });
        await eventually(harness!, () =>
          harness!.events.some((event) => event.type === 'message-queued'),
        );
      },
    });
    const first = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
    const next = await second!;
    expect(first.kind).toBe('reply');
    expect(first.text).toContain('first');
    expect(next.kind).toBe('reply');
    expect(next.text).toContain('second');
    expect(harness.sent()).toHaveLength(2);
    // The second request saw the first exchange complete, then the second message.
    const request = harness.mock.requests[1]!;
    expect(JSON.stringify(request.body)).toMatch(/first[\s\S]*Mock reply[\s\S]*second/);
    expect(userTexts(await harness.entries('s1'))).toEqual(['first', 'second']);
  });

  it('steer: a message arriving mid-turn is folded into the running turn at its next model call', async () => {
    let second: Promise<TurnOutcome> | undefined;
    let calls = 0;
    harness = await createHarness({
      overrides: { queueMode: 'steer' },
      tools: {
        definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }],
        async run() {
          return { content: 'looked up' };
        },
      },
      script: [
        {
          behavior: { type: 'ok', toolCalls: [{ id: 'tool-1', name: 'lookup', input: {} }] },
          match: primary,
        },
      ],
      beforeStreamEnds: async () => {
        calls += 1;
        if (calls !== 1) return;
        second = harness!.orchestrator.runTurn({ sessionId: 's1', input: 'and also this' });
        await eventually(harness!, () =>
          harness!.events.some((event) => event.type === 'message-queued'),
        );
      },
    });
    const first = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
    const steered = await second!;
    expect(first.kind).toBe('reply');
    expect(first.steeredMessageIds).toHaveLength(1);
    expect(steered).toMatchObject({ kind: 'reply', turnId: first.turnId, text: first.text });
    expect(steered.messageId).toBe(first.steeredMessageIds![0]);
    expect(harness.sent()).toHaveLength(2);
    expect(JSON.stringify(harness.mock.requests[1]!.body)).toContain('and also this');
  });

  it('onEvent receives the events of the turn that answers the message, not of the turn before it', async () => {
    let second: Promise<TurnOutcome> | undefined;
    const seen: string[] = [];
    harness = await createHarness({
      beforeStreamEnds: async () => {
        if (second !== undefined) return;
        second = harness!.orchestrator.runTurn({
          sessionId: 's1',
          input: 'second',
          onEvent: (event) => seen.push(`${event.type}:${event.turnId}`),
        });
        await eventually(harness!, () =>
          harness!.events.some((event) => event.type === 'message-queued'),
        );
      },
    });
    const first = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
    const next = await second!;
    expect(seen.some((entry) => entry.endsWith(first.turnId))).toBe(false);
    expect(seen[0]).toBe(`turn-start:${next.turnId}`);
    expect(seen.at(-1)).toBe(`turn-end:${next.turnId}`);
    expect(harness.orchestrator.stats()).toEqual({ runningTurns: 0, queuedTurns: 0 });
  });

  it('skips reading the transcript when nothing changed since its last turn, and reads only a foreign append after one', async () => {
    let reads = 0;
    let readsSince = 0;
    harness = await createHarness({
      wrapStorage: (storage) => ({
        ...storage,
        read: (...args: Parameters<typeof storage.read>) => {
          reads += 1;
          return storage.read(...args);
        },
        readSince: (...args: Parameters<NonNullable<typeof storage.readSince>>) => {
          readsSince += 1;
          return storage.readSince?.(...args) ?? Promise.resolve(undefined);
        },
      }),
    });
    const { orchestrator } = harness;
    await orchestrator.runTurn({ sessionId: 's1', input: 'one' });
    await orchestrator.runTurn({ sessionId: 's1', input: 'two' });
    expect(reads).toBe(1);
    await harness.storage.append('s1', [
      {
        type: 'message',
        id: 'f1',
        messageId: 'f1',
        timestamp: new Date().toISOString(),
        role: 'assistant',
        content: [{ type: 'text', text: 'from elsewhere' }],
      },
    ]);
    const third = await orchestrator.runTurn({ sessionId: 's1', input: 'three' });
    expect({ reads, readsSince }).toEqual({ reads: 1, readsSince: 1 });
    expect(third.kind).toBe('reply');
    expect(JSON.stringify(harness.mock.requests.at(-1)?.body)).toContain('from elsewhere');
  });

  it('a repeat that arrives while a recovered turn is still reading the transcript joins its message, never writes it twice', async () => {
    let reads = 0;
    let releaseRead: () => void = () => undefined;
    const readGate = new Promise<void>((resolve) => {
      releaseRead = resolve;
    });
    let turnReading: () => void = () => undefined;
    const reading = new Promise<void>((resolve) => {
      turnReading = resolve;
    });
    harness = await createHarness({
      wrapStorage: (storage) => ({
        ...storage,
        read: async (...args: Parameters<typeof storage.read>) => {
          reads += 1;
          if (reads === 2) {
            turnReading();
            await readGate;
          }
          return storage.read(...args);
        },
      }),
    });
    const stamp = new Date().toISOString();
    const user = (id: string, clientMessageId: string, text: string) => ({
      type: 'message' as const,
      id,
      messageId: id,
      clientMessageId,
      timestamp: stamp,
      role: 'user' as const,
      content: [{ type: 'text' as const, text }],
    });
    // A crash left two messages unanswered: the first with its turn started, the second queued.
    await harness.storage.append('s1', [
      user('m1', 'c1', 'first'),
      { type: 'turn', id: 'ts', turnId: 't0', phase: 'start', messageId: 'm1', timestamp: stamp },
      user('m2', 'c2', 'second'),
    ]);
    const recovered = harness.orchestrator.recover('s1');
    await reading;
    // The client retries the second message while the turn for the first is still reading.
    const repeat = harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'second',
      clientMessageId: 'c2',
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    releaseRead();
    const [outcomes, again] = await Promise.all([recovered, repeat]);
    expect(again).toMatchObject({ kind: 'reply', messageId: 'm2', turnId: outcomes[1]?.turnId });
    expect(userTexts(await harness.entries('s1'))).toEqual(['first', 'second']);
    expect(harness.sent()).toHaveLength(2);
  });

  it('recover with minAgeMs leaves messages younger than that for the gateway that may be answering them', async () => {
    harness = await createHarness();
    const at = (ms: number) => new Date(harness!.clock.now() - ms).toISOString();
    const user = (id: string, age: number) => ({
      type: 'message' as const,
      id,
      messageId: id,
      timestamp: at(age),
      role: 'user' as const,
      content: [{ type: 'text' as const, text: id }],
    });
    await harness.storage.append('s1', [
      {
        type: 'turn',
        id: 't',
        turnId: 't0',
        phase: 'start',
        messageId: 'x',
        timestamp: at(60_000),
      },
      user('old', 60_000),
      user('young', 1_000),
    ]);
    const outcomes = await harness.orchestrator.recover('s1', { minAgeMs: 30_000 });
    expect(outcomes.map((outcome) => outcome.messageId)).toEqual(['old']);
    expect((await harness.orchestrator.recover('s1')).map((outcome) => outcome.messageId)).toEqual([
      'young',
    ]);
  });
});
